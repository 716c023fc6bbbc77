//! `groundcheck canary`: known-good calls against a live server, compared with a baseline.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use super::print::outln;
use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::drift::snapshot::{connect, server_info};
use groundcheck::mcp::canary::{self, Seen};
use groundcheck::output::write_atomic;
use serde_json::{Value, json};

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
    #[arg(long, default_value_t = 60.0, value_name = "SECS", value_parser = super::common::parse_seconds)]
    timeout: f64,

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
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let (client, _) = connect(source, timeout, &args.pass_env).await?;
    let server = args
        .server
        .clone()
        .or(server_info(&client).0)
        .unwrap_or_else(|| source.to_string());
    let now = || chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let run_id = format!("canary-{}", chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"));
    let baseline_path = args
        .baseline
        .clone()
        .unwrap_or_else(|| args.out.join("canary/baseline.jsonl"));
    let mut baseline = match std::fs::read_to_string(&baseline_path) {
        Ok(t) => canary::parse_baseline(&baseline_path.display().to_string(), &t)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read {}", baseline_path.display()));
        }
    };
    let mut steps = String::new();
    let mut failed = 0;
    let mut changed_baseline = false;
    for (i, c) in canaries.iter().enumerate() {
        let trace_id = format!("{run_id}/{}", c.name);
        let call_id = format!("c{}", i + 1);
        let mut step = |n: u32, kind: &str, extra: Value| {
            let mut v = json!({"run_id": run_id, "server": server, "trace_id": trace_id, "step": n,
                               "ts": now(), "kind": kind, "call_id": call_id, "tool": c.tool});
            for (k, x) in extra.as_object().expect("object") {
                v[k] = x.clone();
            }
            steps += &v.to_string();
            steps.push('\n');
        };
        step(1, "tool_call", json!({"arguments": c.arguments}));
        let params = rmcp::model::CallToolRequestParams::new(c.tool.clone())
            .with_arguments(c.arguments.clone());
        let (is_error, result) = match tokio::time::timeout(timeout, client.call_tool(params)).await
        {
            Ok(Ok(r)) => {
                let v = serde_json::to_value(&r).context("tools/call result")?;
                let is_error = v.get("isError").and_then(Value::as_bool).unwrap_or(false);
                (is_error, groundcheck::input::import::result_value(&v))
            }
            Ok(Err(e)) => (true, json!({"error": e.to_string()})),
            Err(_) => (
                true,
                json!({"error": format!("no answer within {timeout:?}")}),
            ),
        };
        step(
            2,
            "tool_result",
            json!({"result": result, "is_error": is_error}),
        );
        let verdict = canary::judge(c, is_error, &result, baseline.get(&c.name));
        if verdict.failures.is_empty() {
            outln!("PASS {}", c.name);
            if args.update_baseline || !baseline.contains_key(&c.name) {
                baseline.insert(c.name.clone(), Seen::of(&result));
                changed_baseline = true;
            }
        } else {
            failed += 1;
            outln!("FAIL {}: {}", c.name, verdict.failures.join("; "));
            if args.update_baseline {
                baseline.insert(c.name.clone(), Seen::of(&result));
                changed_baseline = true;
            }
        }
        for note in &verdict.notes {
            outln!("     {}: {note}", c.name);
        }
    }
    let _ = client.cancel().await;
    let trace = args
        .out
        .join("canary/traces")
        .join(format!("{run_id}.jsonl"));
    write_atomic(&trace, steps.as_bytes())
        .with_context(|| format!("cannot write {}", trace.display()))?;
    if changed_baseline {
        let text: String = baseline
            .iter()
            .map(|(k, s)| s.to_json(k).to_string() + "\n")
            .collect();
        write_atomic(&baseline_path, text.as_bytes())
            .with_context(|| format!("cannot write {}", baseline_path.display()))?;
    }
    outln!(
        "{} canaries against {server}: {} passed, {failed} failed; trace {}{}",
        canaries.len(),
        canaries.len() - failed,
        trace.display(),
        if changed_baseline {
            format!("; baseline {}", baseline_path.display())
        } else {
            String::new()
        }
    );
    Ok(failed)
}
