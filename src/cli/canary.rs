//! `groundcheck canary`: known-good calls against a live server, compared with a baseline.

use std::process::ExitCode;
use std::time::Duration;

use super::print::outln;
use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::mcp::canary;

/// Run canaries (seed 002: "known-good queries with known-expected responses, run on a
/// schedule") against a live MCP server: a command after `--` (stdio), `stdio:CMD` or an
/// http(s) URL. Each canary's call is recorded as trace steps in
/// OUT/canary/traces/RUN.jsonl (the `steps` table), checked against its expectations and
/// against the baseline (shape, rows, result), and printed. The first run records the
/// baseline. Exit 1 when a canary fails; `--every 1h` keeps running.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// canaries.jsonl: {"name", "tool", "arguments", "expect": {"exact", "contains",
    /// "min_rows", "shape", "error"}} per line.
    canaries: std::path::PathBuf,

    /// stdio:CMD or an http(s):// URL.
    #[arg(required_unless_present = "command", conflicts_with = "command")]
    source: Option<String>,

    /// The server command and its arguments, run over stdio.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,

    /// Baseline file (default: OUT/canary/baseline.jsonl). Written when missing; canaries
    /// it lacks are added.
    #[arg(long, value_name = "FILE")]
    baseline: Option<std::path::PathBuf>,

    /// Replace the baseline with this run's results.
    #[arg(long)]
    update_baseline: bool,

    /// Server name for the trace (default: the server's own name).
    #[arg(long)]
    server: Option<String>,

    /// Run again after this long (e.g. 30s, 15m, 1h) until stopped.
    #[arg(long, value_name = "DURATION", value_parser = parse_every)]
    every: Option<Duration>,

    /// With --every: stop after this many runs.
    #[arg(long, value_name = "N")]
    runs: Option<u64>,

    /// Run this command (with `sh -c`) after each failed run: a canary failed, or the
    /// server could not be reached. It gets GROUNDCHECK_CANARY_RUN (the run number),
    /// GROUNDCHECK_CANARY_FAILED (failed canaries, or "unreachable") and
    /// GROUNDCHECK_CANARY_MESSAGE (one line).
    #[arg(long, value_name = "CMD")]
    alert: Option<String>,

    /// Seconds the server may take to start, and each call to answer.
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = super::common::parse_timeout)]
    timeout: Duration,

    /// Folder for outputs.
    #[arg(long, default_value = "out")]
    pub(crate) out: std::path::PathBuf,
    /// Give a stdio server this environment variable too (repeatable; `PREFIX*` for a
    /// family, `*` for all). By default it gets only PATH, HOME, locale, time zone,
    /// proxies, certificates and GROUNDCHECK_*: not cloud credentials or tokens.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,
}

fn parse_every(s: &str) -> Result<Duration, String> {
    let (n, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = n
        .parse()
        .map_err(|_| format!("expected e.g. 30s, 15m or 1h, got '{s}'"))?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("expected e.g. 30s, 15m or 1h, got '{s}'")),
    };
    if secs == 0 {
        return Err("--every must be more than zero".into());
    }
    Ok(Duration::from_secs(secs))
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.canaries)
        .with_context(|| format!("cannot read {}", args.canaries.display()))?;
    let canaries = canary::parse(&args.canaries.display().to_string(), &text)?;
    let source = match &args.source {
        Some(s) => s.clone(),
        None => groundcheck::drift::snapshot::stdio_source(&args.command),
    };
    let mut n = 0;
    let mut failed_runs = 0;
    loop {
        n += 1;
        // With --every a run that fails (a canary, or the server unreachable) is recorded
        // and the watch goes on; alone, an unreachable server is an error (exit 2).
        let outcome = match once(&args, &canaries, &source).await {
            Ok(0) => None,
            Ok(failed) => Some((
                failed.to_string(),
                format!(
                    "run {n}: {failed} of {} canaries failed against {source}",
                    canaries.len()
                ),
            )),
            Err(e) if args.every.is_some() => {
                let msg = format!("run {n}: {source} could not be checked: {e:#}");
                outln!("FAIL {msg}");
                Some(("unreachable".to_string(), msg))
            }
            Err(e) => return Err(e),
        };
        if let Some((failed, msg)) = &outcome {
            failed_runs += 1;
            if let Some(cmd) = &args.alert {
                alert(cmd, n, failed, msg).await;
            }
        }
        let more = args.every.is_some() && args.runs.is_none_or(|r| n < r);
        if !more {
            if args.every.is_some() {
                outln!("{n} run(s), {failed_runs} failed");
            }
            // Exit 1 when any run failed, not only the last.
            return Ok(if failed_runs > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            });
        }
        tokio::time::sleep(args.every.expect("checked")).await;
    }
}

/// The --alert hook of a failed run.
async fn alert(cmd: &str, run: u64, failed: &str, message: &str) {
    let env = [
        ("GROUNDCHECK_CANARY_RUN", run.to_string()),
        ("GROUNDCHECK_CANARY_FAILED", failed.to_string()),
        ("GROUNDCHECK_CANARY_MESSAGE", message.to_string()),
    ];
    super::common::alert("canary", cmd, &env).await;
}

/// One run: the number of failed canaries.
async fn once(args: &Args, canaries: &[canary::Canary], source: &str) -> anyhow::Result<usize> {
    let opts = canary::RunOptions {
        source: source.to_string(),
        server: args.server.clone(),
        timeout: args.timeout,
        pass_env: args.pass_env.clone(),
        baseline: args
            .baseline
            .clone()
            .unwrap_or_else(|| args.out.join("canary/baseline.jsonl")),
        update_baseline: args.update_baseline,
        out: args.out.clone(),
    };
    let run = canary::run(canaries, &opts).await?;
    for (name, verdict) in &run.verdicts {
        if verdict.failures.is_empty() {
            outln!("PASS {name}");
        } else {
            outln!("FAIL {name}: {}", verdict.failures.join("; "));
        }
        for note in &verdict.notes {
            outln!("     {name}: {note}");
        }
    }
    outln!(
        "{} canaries against {}: {} passed, {} failed; trace {}{}",
        canaries.len(),
        run.server,
        canaries.len() - run.failed,
        run.failed,
        run.trace.display(),
        run.baseline
            .as_ref()
            .map(|b| format!("; baseline {}", b.display()))
            .unwrap_or_default()
    );
    Ok(run.failed)
}
