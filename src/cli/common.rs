//! Options every verb shares: where inputs are read from and where outputs go.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use groundcheck::engine::session::Cluster;
use groundcheck::eval::labels::{Labeler, Options as LabelOptions};
use groundcheck::input::child::Env;
use groundcheck::input::jsonl::{OnBadLine, ReadOptions};
use groundcheck::{Session, SessionOptions};

#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// Project folder to read: a local path or s3://bucket/prefix. It holds cases.jsonl,
    /// traces/, context/ and snapshots/ (JSONL or Parquet; see docs/tables.md).
    #[arg(long, default_value = "datasets/demo", env = "GROUNDCHECK_DATA")]
    pub data: String,

    /// Read one table from elsewhere: NAME=PATH, where PATH is a file, a folder, a glob
    /// (quote it) or an s3:// URL. Repeatable.
    #[arg(long = "table", value_name = "NAME=PATH", value_parser = parse_table)]
    pub tables: Vec<(String, String)>,

    /// What to do with an input line that does not fit its table: fail (stop with an error
    /// naming file, line and field) or skip (write it to OUT/rejects.jsonl and go on).
    #[arg(long, value_enum, default_value_t = OnBadLine::Fail)]
    pub on_bad_line: OnBadLine,

    /// Read the traces (the steps table) from files of another format instead:
    /// FORMAT=PATH with FORMAT otlp, phoenix or mcp-log (docs/importers.md).
    /// Repeatable, one format.
    #[arg(long = "traces-from", value_name = "FORMAT=PATH", value_parser = parse_traces_from)]
    pub traces_from: Vec<(groundcheck::input::import::TraceFormat, PathBuf)>,

    /// Server name for --traces-from traces that do not name their MCP server.
    #[arg(long, value_name = "NAME")]
    pub traces_server: Option<String>,

    /// Longest input line accepted, in bytes.
    #[arg(long, default_value_t = 16 * 1024 * 1024)]
    pub max_line_bytes: usize,

    /// Run the queries on a Ballista cluster: the scheduler's df://HOST:PORT (start one
    /// with `groundcheck scheduler`, executors with `groundcheck executor`). Tables must
    /// be Parquet the executors can reach (s3://, or a shared path). docs/cluster.md.
    #[arg(long, value_name = "df://HOST:PORT", conflicts_with = "standalone")]
    pub cluster: Option<String>,

    /// Run the queries on a Ballista scheduler and executor started in this process.
    #[arg(long)]
    pub standalone: bool,

    /// Partitions per stage (DataFusion's target_partitions; default: this machine's
    /// cores). On a cluster each shuffle has this many partitions.
    #[arg(long, value_name = "N")]
    pub partitions: Option<usize>,

    /// With --cluster: fail (exit 2) when the scheduler has counted no live executor for
    /// this many seconds.
    #[arg(long, value_name = "SECS", default_value = "120", value_parser = parse_duration)]
    pub cluster_wait: std::time::Duration,

    /// With --cluster or --standalone: fail (exit 2) when the verb's work on the cluster
    /// has not finished after this many seconds.
    #[arg(long, value_name = "SECS", default_value = "3600", value_parser = parse_duration)]
    pub cluster_timeout: std::time::Duration,
}

/// A number of seconds, whole or decimal, from 0 to a year, as a Duration: the one parser
/// of every seconds flag (each is a `Duration` from here on), so `inf`, `NaN` or `-1` get
/// a sentence, not a panic.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    const YEAR: f64 = 365.0 * 24.0 * 3600.0;
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=YEAR).contains(&v) => {
            Ok(std::time::Duration::from_secs_f64(v))
        }
        Ok(_) => Err(format!("{s}: expected seconds from 0 to {YEAR} (a year)")),
        Err(_) => Err(format!("{s}: expected a number of seconds")),
    }
}

/// `parse_duration` for a wait or a deadline: 0 would fail every call at once, so it is
/// refused (at least a millisecond).
pub fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(s)?;
    if d < std::time::Duration::from_millis(1) {
        return Err(format!("{s}: a timeout must be at least 0.001 seconds"));
    }
    Ok(d)
}

/// The HTML report's options (`report --html`, `groundcheck html`).
#[derive(Debug, Clone, Args)]
pub struct Html {
    /// Cases the page's table holds at most, each with its trace panel; above, the worst
    /// half (policy violation, wrong, correct but not grounded, ...) and a sample.
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub html_cases: usize,

    /// Render the panels from the labels alone, without reading the traces and history
    /// of --data.
    #[arg(long)]
    pub no_traces: bool,
}

impl Html {
    /// Renders the page over `labels` (a labeler's labels.parquet) into `path`, reading
    /// the traces from `input` unless --no-traces.
    pub async fn write(&self, labels: &Path, input: &DataArgs, path: &Path) -> anyhow::Result<()> {
        let project = if self.no_traces {
            None
        } else {
            Some(input.session_options().await?)
        };
        let opts = groundcheck::eval::page::Options {
            max_cases: self.html_cases.max(1),
            source: format!("labels of {}", input.data),
            project,
        };
        groundcheck::eval::page::write_report(labels, &opts, path).await?;
        Ok(())
    }
}

#[derive(Debug, Clone, Args)]
pub struct OutArgs {
    /// Folder for outputs (and rejects.jsonl).
    #[arg(long, default_value = "out")]
    pub out: PathBuf,

    /// No progress bar (it shows only on a terminal anyway) and no notes (with -v, notes
    /// also name the tables found empty).
    #[arg(long, short)]
    pub quiet: bool,

    /// Write empty outputs when there is nothing to label, instead of failing (exit 2).
    #[arg(long)]
    pub allow_empty: bool,
}

impl OutArgs {
    /// A progress bar of JSONL bytes read, fed by every scan of the session's tables.
    pub fn progress(&self, session: &Session) -> indicatif::ProgressBar {
        let bar = if self.quiet {
            indicatif::ProgressBar::hidden()
        } else {
            indicatif::ProgressBar::new_spinner()
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} read {bytes} of traces and cases, {bytes_per_sec}, {elapsed} {msg}",
            )
            .expect("static template"),
        );
        let b = bar.clone();
        let _ = session.progress.set(std::sync::Arc::new(move |n| b.inc(n)));
        bar
    }
}

fn parse_traces_from(
    s: &str,
) -> Result<(groundcheck::input::import::TraceFormat, PathBuf), String> {
    let (f, p) = s
        .split_once('=')
        .ok_or_else(|| format!("expected FORMAT=PATH, got {s}"))?;
    let format =
        <groundcheck::input::import::TraceFormat as clap::ValueEnum>::from_str(f.trim(), false)
            .map_err(|_| format!("'{f}' is not a trace format (otlp, phoenix, mcp-log)"))?;
    Ok((format, PathBuf::from(p.trim())))
}

fn parse_table(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("expected NAME=PATH, got {s}"))
}

impl DataArgs {
    pub async fn open(&self) -> anyhow::Result<Session> {
        let opts = self.session_options().await?;
        Session::open(opts)
            .await
            .with_context(|| format!("cannot open {}", self.data))
    }

    /// The session opened for labeling (`groundcheck::eval::labels`).
    pub async fn labeler(&self) -> anyhow::Result<Labeler> {
        let opts = self.session_options().await?;
        Labeler::open(opts)
            .await
            .with_context(|| format!("cannot open {}", self.data))
    }

    fn options(
        &self,
        cluster: Option<Cluster>,
        steps: Option<groundcheck::engine::session::Steps>,
    ) -> SessionOptions {
        SessionOptions {
            cluster,
            partitions: self.partitions,
            patience: groundcheck::engine::context::Patience {
                no_executor: self.cluster_wait,
                total: self.cluster_timeout,
            },
            steps,
            data: self.data.clone(),
            tables: self.tables.clone(),
            read: ReadOptions {
                on_bad_line: self.on_bad_line,
                max_line_bytes: self.max_line_bytes,
                ..ReadOptions::default()
            },
        }
    }

    /// What the flags say to open: `--traces-from` files imported into a steps table,
    /// tied to the project's cases.
    pub async fn session_options(&self) -> anyhow::Result<SessionOptions> {
        let steps = match self.traces_from.first() {
            None => None,
            Some((format, _)) => {
                if self.traces_from.iter().any(|(f, _)| f != format) {
                    anyhow::bail!("--traces-from: one format at a time");
                }
                // The project's cases tie the imported traces (by source_trace).
                let paths: Vec<PathBuf> = self.traces_from.iter().map(|(_, p)| p.clone()).collect();
                let (steps, lines) = groundcheck::engine::source_traces::steps_from(
                    self.options(None, None),
                    *format,
                    &paths,
                    self.traces_server.clone(),
                )
                .await?;
                for line in lines {
                    eprintln!("{line}");
                }
                Some(steps)
            }
        };
        let cluster = match (&self.cluster, self.standalone) {
            (Some(url), _) => Some(Cluster::Remote(url.clone())),
            (None, true) => Some(Cluster::Standalone),
            (None, false) => None,
        };
        Ok(self.options(cluster, steps))
    }
}

/// Prints the session's notes, then writes rejects (if any) and says how many.
pub fn finish(session: &Session, out: &Path, quiet: bool) -> anyhow::Result<()> {
    finish_as(session, out, quiet, false)
}

/// `finish` for a verb whose outputs in `out` are one set (label, report, ingest): a
/// clean run also removes the rejects.jsonl an earlier run left there.
pub fn finish_set(session: &Session, out: &Path, quiet: bool) -> anyhow::Result<()> {
    finish_as(session, out, quiet, true)
}

fn finish_as(session: &Session, out: &Path, quiet: bool, replace: bool) -> anyhow::Result<()> {
    if !quiet {
        for note in &session.notes {
            eprintln!("note: {note}");
        }
        if groundcheck::engine::session::VERBOSE.load(std::sync::atomic::Ordering::Relaxed) {
            for note in &session.absent {
                eprintln!("note: {note}");
            }
        }
    }
    if let Some(path) = session
        .rejects
        .write(out, replace)
        .context("cannot write rejects")?
    {
        eprintln!(
            "rejected {} input line(s); they are in {}",
            session.rejects.len(),
            path.display()
        );
    }
    Ok(())
}

/// The external policy oracle, for the verbs that label.
#[derive(Debug, Clone, Args)]
pub struct Oracle {
    /// Also check every call's result with this command (run with `sh -c`): the source
    /// system's own permission check, speaking JSON lines (docs/policy-oracle.md). Calls it
    /// cannot answer go to human review, never counted as allowed.
    #[arg(long, value_name = "CMD")]
    pub policy_oracle: Option<String>,

    /// Seconds the policy oracle may take to answer one call.
    #[arg(long, default_value = "10", value_name = "SECS", value_parser = parse_timeout)]
    pub policy_oracle_timeout: std::time::Duration,
}

impl Oracle {
    /// The command and its per-call timeout, if one was given.
    pub fn command(&self) -> Option<(String, std::time::Duration)> {
        self.policy_oracle
            .as_ref()
            .map(|cmd| (cmd.clone(), self.policy_oracle_timeout))
    }
}

/// How `label` and `report` label.
#[derive(Debug, Clone, Args)]
pub struct Chunking {
    /// Label the tasks of about this many steps at a time (chunks of cases): memory
    /// follows the chunk, not the project, and the labels are the same bytes. 0 labels
    /// everything in one query. On a cluster the executors share the work instead.
    #[arg(long, default_value_t = 250_000, value_name = "STEPS")]
    pub chunk_steps: u64,
}

/// Labels every task into `dir`/labels.jsonl and labels.parquet (`eval::labels`, the one
/// way every verb labels), with a progress bar, then writes rejects to OUT and prints the
/// session's notes; returns the labeler (its session stays open) and the number of tasks.
/// `filter` keeps only the tasks it selects.
pub async fn write_labels(
    input: &DataArgs,
    output: &OutArgs,
    oracle: &Oracle,
    chunking: &Chunking,
    dir: &Path,
    filter: Option<String>,
) -> anyhow::Result<(Labeler, u64)> {
    let labeler = input.labeler().await?;
    let bar = output.progress(&labeler.session);
    let opts = LabelOptions {
        chunk_steps: chunking.chunk_steps,
        oracle: oracle.command(),
        allow_empty: output.allow_empty,
        filter,
    };
    let started = std::time::Instant::now();
    let on_chunk = |k: usize, n: usize, labeled: u64| {
        if n > 1 {
            let rate = labeled as f64 / started.elapsed().as_secs_f64().max(0.001);
            bar.set_message(format!(
                "labeling chunk {k} of {n}: {labeled} tasks labeled, {rate:.0} tasks/s"
            ));
        }
    };
    let result = labeler.write(dir, &opts, &on_chunk).await;
    bar.finish_and_clear();
    finish_set(&labeler.session, &output.out, output.quiet)?;
    let done = result?;
    if oracle.policy_oracle.is_some() {
        eprintln!("policy oracle checked {} call(s)", done.oracle_calls);
    }
    if done.chunks > 1 && !output.quiet {
        eprintln!(
            "labeled {} tasks in {} chunks of about {} steps",
            done.tasks, done.chunks, chunking.chunk_steps
        );
    }
    Ok((labeler, done.tasks))
}

/// A folder for labels a verb reads and then drops (`report diff`, `review export`):
/// inside OUT, skipped by listings (leading `.`), removed when dropped or interrupted.
pub fn scratch(out: &Path) -> anyhow::Result<tempfile::TempDir> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let dir = tempfile::Builder::new()
        .prefix(".groundcheck-labels-")
        .tempdir_in(out)
        .with_context(|| format!("cannot create a folder in {}", out.display()))?;
    groundcheck::output::track_temporary(dir.path());
    Ok(dir)
}

/// For verbs that cannot write to an object store yet: a `--out URL` is refused before
/// anything is written (rather than a local folder named `s3:`).
pub fn local_out(out: &std::path::Path, verb: &str) -> anyhow::Result<()> {
    if groundcheck::output::remote::is_remote(out) {
        anyhow::bail!(groundcheck::Error::Config(format!(
            "--out {}: `{verb}` writes to a local folder only (label, report, ingest, \
             import, snapshot, sample, sql, replay and gen write to s3://); write locally and copy",
            out.display()
        )));
    }
    Ok(())
}

/// An `--alert CMD` hook (`sh -c`, with `env` added): its own failure is said on stderr,
/// never fatal to the verb that raised it.
pub async fn alert(verb: &str, cmd: &str, env: &[(&str, String)]) {
    let status = groundcheck::input::child::command(cmd, Env::Inherited)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .status()
        .await;
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => eprintln!("{verb}: the --alert command exited with {s}"),
        Err(e) => eprintln!("{verb}: cannot run the --alert command: {e}"),
    }
}
