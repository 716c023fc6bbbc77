//! Command line: one module per verb, each with an `Args` struct and `run`.
//!
//! Exit codes: 0 ok, 1 a finding the user asked to fail on, 2 an error. A closed pipe
//! (`| head`) is not an error.

mod print;

mod annotate;
mod anomalies;
mod canary;
#[cfg(feature = "ballista")]
mod cluster;
mod collect;
mod common;
mod drift;
mod functions;
mod gateway;
mod html;
mod import;
mod ingest;
mod label;
mod replay;
mod report;
mod review;
mod run;
mod sample;
mod snapshot;
mod sql;
mod suite;
mod synth;
mod tables;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Scores how agents use MCP tools, and watches the tools drift, as SQL over traces.
#[derive(Debug, Parser)]
#[command(name = "groundcheck", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,

    /// Say more: which tables were looked for and found empty.
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    Annotate(annotate::Args),
    Anomalies(anomalies::Args),
    Canary(canary::Args),
    Collect(collect::Args),
    Drift(drift::Args),
    #[cfg(feature = "ballista")]
    Executor(cluster::ExecutorArgs),
    Functions(functions::Args),
    Gateway(gateway::Args),
    Gen(synth::Args),
    Html(html::Args),
    Import(import::Args),
    Ingest(ingest::Args),
    Label(label::Args),
    Replay(replay::Args),
    Report(report::Args),
    Review(review::Args),
    Run(run::Args),
    Sample(sample::Args),
    #[cfg(feature = "ballista")]
    Scheduler(cluster::SchedulerArgs),
    Snapshot(snapshot::Args),
    Sql(sql::Args),
    Suite(suite::Args),
    Tables(tables::Args),
}

/// With `--out URL`: the verb writes into a local staging folder, uploaded when it ends
/// well (src/output/remote.rs).
fn stage(
    out: &mut std::path::PathBuf,
) -> anyhow::Result<Option<groundcheck::output::remote::Staging>> {
    if !groundcheck::output::remote::is_remote(out) {
        return Ok(None);
    }
    let staging = groundcheck::output::remote::Staging::new(out)?;
    *out = staging.local.clone();
    Ok(Some(staging))
}

#[cfg(feature = "ballista")]
async fn cluster_stopped() -> groundcheck::Error {
    groundcheck::engine::cluster::stopped().await
}

#[cfg(not(feature = "ballista"))]
async fn cluster_stopped() -> groundcheck::Error {
    std::future::pending().await
}

/// Uploads what a staged verb wrote when it succeeded (exit 0 or 1: findings, not
/// failures); nothing otherwise.
async fn unstage(
    staging: Option<groundcheck::output::remote::Staging>,
    code: anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    let Some(staging) = staging else {
        return code;
    };
    let code = code?;
    let sent = staging.upload().await?;
    if sent.is_empty() {
        anyhow::bail!(groundcheck::Error::Input(
            "the verb wrote no output file to upload".to_string()
        ));
    }
    eprintln!("uploaded {} file(s): {}", sent.len(), sent.join(", "));
    Ok(code)
}

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    groundcheck::engine::session::VERBOSE.store(cli.verbose, std::sync::atomic::Ordering::Relaxed);
    let mut command = cli.command;
    let staging = match &mut command {
        Command::Ingest(a) => stage(&mut a.output.out)?,
        Command::Label(a) => stage(&mut a.output.out)?,
        Command::Report(a) => stage(&mut a.output.out)?,
        Command::Sample(a) => stage(&mut a.output.out)?,
        Command::Replay(a) => stage(&mut a.output.out)?,
        Command::Sql(a) => stage(&mut a.out.out)?,
        Command::Import(a) => stage(&mut a.out)?,
        Command::Snapshot(a) => stage(&mut a.out)?,
        Command::Gen(a) => stage(&mut a.out)?,
        Command::Anomalies(a) => common::local_out(&a.output.out, "anomalies").map(|_| None)?,
        Command::Canary(a) => common::local_out(&a.out, "canary").map(|_| None)?,
        Command::Collect(a) => common::local_out(&a.out, "collect").map(|_| None)?,
        Command::Gateway(a) => common::local_out(&a.out, "gateway").map(|_| None)?,
        Command::Run(a) => common::local_out(&a.out, "run").map(|_| None)?,
        _ => None,
    };
    // A local --out gets its outputs as a set (src/output/set.rs); a staged one is fresh.
    let set = match (&staging, &command) {
        (Some(_), _) => None,
        (None, Command::Ingest(a)) => Some((a.output.out.clone(), "ingest")),
        (None, Command::Label(a)) => Some((a.output.out.clone(), "label")),
        (None, Command::Report(a)) => Some((a.output.out.clone(), "report")),
        (None, Command::Sample(a)) => Some((a.output.out.clone(), "sample")),
        (None, Command::Replay(a)) => Some((a.output.out.clone(), "replay")),
        (None, Command::Sql(a)) => Some((a.out.out.clone(), "sql")),
        (None, Command::Import(a)) => Some((a.out.clone(), "import")),
        (None, Command::Snapshot(a)) => Some((a.out.clone(), "snapshot")),
        (None, Command::Gen(a)) => Some((a.out.clone(), "gen")),
        (None, Command::Anomalies(a)) => Some((a.output.out.clone(), "anomalies")),
        (None, Command::Canary(a)) => Some((a.out.clone(), "canary")),
        _ => None,
    };
    if let Some((out, verb)) = &set {
        groundcheck::output::set::open(out, verb)?;
    }
    let work = async move {
        match command {
            Command::Annotate(a) => annotate::run(a).await,
            Command::Anomalies(a) => anomalies::run(a).await,
            Command::Canary(a) => canary::run(a).await,
            Command::Collect(a) => collect::run(a).await,
            Command::Drift(a) => drift::run(a).await,
            #[cfg(feature = "ballista")]
            Command::Executor(a) => cluster::run_executor(a).await,
            Command::Functions(a) => functions::run(a).await,
            Command::Gateway(a) => gateway::run(a).await,
            Command::Gen(a) => synth::run(a).await,
            Command::Html(a) => html::run(a).await,
            Command::Import(a) => import::run(a).await,
            Command::Ingest(a) => ingest::run(a).await,
            Command::Label(a) => label::run(a).await,
            Command::Replay(a) => replay::run(a).await,
            Command::Report(a) => report::run(a).await,
            Command::Review(a) => review::run(a).await,
            Command::Run(a) => run::run(a).await,
            Command::Sample(a) => sample::run(a).await,
            #[cfg(feature = "ballista")]
            Command::Scheduler(a) => cluster::run_scheduler(a).await,
            Command::Snapshot(a) => snapshot::run(a).await,
            Command::Sql(a) => sql::run(a).await,
            Command::Suite(a) => suite::run(a).await,
            Command::Tables(a) => tables::run(a).await,
        }
    };
    // A verb on a cluster ends with a sentence when the cluster cannot finish its work
    // (engine::cluster::stopped); without one that never resolves.
    let code = tokio::select! {
        code = work => code,
        why = cluster_stopped() => Err(why.into()),
    };
    let code = unstage(staging, code).await;
    if set.is_some() {
        publish_set(&code);
    }
    code
}

/// Commits a local set when the verb found or judged (exit 0 or 1); rolls it back when it
/// failed (exit 2, 3 or 4). The failure stays one sentence: that earlier outputs are left as they
/// were is the documented rule, said with -v.
fn publish_set(code: &anyhow::Result<ExitCode>) {
    use groundcheck::output::set;
    if code.is_ok() {
        set::commit();
    } else if let Some((dir, paths)) = set::roll_back()
        && groundcheck::engine::session::VERBOSE.load(std::sync::atomic::Ordering::Relaxed)
    {
        eprintln!(
            "{}: the earlier outputs are back ({} replaced path(s) rolled back: {})",
            dir.display(),
            paths.len(),
            paths.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::Cli;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("groundcheck").chain(args.iter().copied()))
    }

    /// Every verb, and every flag and argument of every verb, says what it is in --help.
    #[test]
    fn every_verb_and_argument_is_documented() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            if cmd.get_about().is_none() && cmd.get_long_about().is_none() {
                missing.push(format!("{path}: the verb"));
            }
            for a in cmd.get_arguments() {
                let id = a.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                if a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(format!("{path}: {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_name() != "help" {
                    walk(sub, &format!("{path} {}", sub.get_name()), missing);
                }
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "groundcheck", &mut missing);
        assert!(missing.is_empty(), "undocumented: {missing:#?}");
        Cli::command().debug_assert();
    }

    /// What each verb writes is named in its --help, file by file.
    #[test]
    fn every_writing_verb_names_its_outputs() {
        for (verb, outputs) in [
            ("label", &["OUT/labels.jsonl", "OUT/labels.parquet"][..]),
            (
                "report",
                &["OUT/report.json", "OUT/report.parquet", "OUT/labels.jsonl"],
            ),
            ("ingest", &["--out"]),
            ("sql", &["--output"]),
        ] {
            let mut cmd = Cli::command();
            let sub = cmd.find_subcommand_mut(verb).expect(verb);
            let help = sub.render_long_help().to_string();
            for o in outputs {
                assert!(help.contains(o), "{verb} --help does not name {o}: {help}");
            }
        }
    }

    #[test]
    fn flags_parse_as_documented() {
        assert!(parse(&["report", "--history", "h", "--note", "n"]).is_ok());
        let e = parse(&["report", "--note", "n"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        let e = parse(&["label", "--cluster", "df://h:1", "--standalone"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict);
        let e = parse(&["label", "--table", "steps"]).unwrap_err();
        assert!(
            e.to_string().contains("expected NAME=PATH, got steps"),
            "{e}"
        );
        let e = parse(&["label", "--traces-from", "zipkin=x"]).unwrap_err();
        assert!(
            e.to_string().contains("'zipkin' is not a trace format"),
            "{e}"
        );
        let e = parse(&["label", "--on-bad-line", "ignore"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
        // `suite rerun` selects the changed cases without being told to.
        assert!(parse(&["suite", "rerun", "--old", "o"]).is_ok());
        let e = parse(&["suite", "rerun", "--changed", "--old", "o"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
        assert!(parse(&["report", "diff", "a", "b", "--fail-on-regression"]).is_ok());
    }
}
