//! `groundcheck anomalies`: seed 002's runtime guards over recorded tool results, by
//! window (queries/tool_health.sql), with the thresholds as flags.

use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};
use groundcheck::eval::anomalies::{self, Settings};
use serde_json::Value;

use super::common::{DataArgs, OutArgs, finish};
use super::print::{out, outln};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Window {
    Hour,
    Day,
}

/// Flag the windows (an hour or a day, per server and tool) whose share of empty or
/// error results jumped above the tool's baseline of earlier healthy windows: an outage
/// stays flagged for as long as it lasts, as the baseline never takes it in
/// (queries/tool_health.sql; every window is a row of the `tool_health` view). Prints the
/// flagged windows; exit 1 when there is one, 2 when no recorded result has a time.
/// `--alert CMD` runs once when something is flagged (docs/drift.md, runtime guards).
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Window length.
    #[arg(long, value_enum, default_value_t = Window::Hour)]
    window: Window,

    /// Results a window needs to be judged (and to count in a baseline).
    #[arg(long, default_value_t = 3, value_name = "N")]
    min_calls: i64,

    /// How far above its baseline a rate must be to flag (0.5: from 10 % empty to 60 %).
    #[arg(long, default_value_t = 0.5, value_name = "RATE")]
    jump: f64,

    /// Healthy earlier windows the baseline needs before anything is flagged.
    #[arg(long, default_value_t = 3, value_name = "N")]
    min_baseline: i64,

    /// |z| of a result's rows or bytes against the tool's previous 10 for the per-call
    /// guard (queries/response_anomalies.sql).
    #[arg(long, default_value_t = 3.0)]
    z: f64,

    /// Print JSON lines (one flagged window each) instead of a table.
    #[arg(long)]
    json: bool,

    /// Run this command (with `sh -c`) when a window is flagged. It gets
    /// GROUNDCHECK_ANOMALIES (how many) and GROUNDCHECK_ANOMALIES_MESSAGE (one line).
    #[arg(long, value_name = "CMD")]
    alert: Option<String>,

    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    pub(crate) output: OutArgs,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = Settings {
        window: match args.window {
            Window::Hour => "hour",
            Window::Day => "day",
        },
        min_calls: args.min_calls,
        jump: args.jump,
        min_baseline: args.min_baseline,
        z: args.z,
    };
    settings.check()?;
    let session = args.input.open().await?;
    let result = anomalies::find(&session, &args.input.data, &settings).await;
    finish(&session, &args.output.out, args.output.quiet)?;
    let found = result?;
    let flagged = &found.flagged;
    let n =
        |r: &serde_json::Map<String, Value>, k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
    let s = |r: &serde_json::Map<String, Value>, k: &str| {
        r.get(k).and_then(Value::as_str).unwrap_or("?").to_string()
    };
    let rate = |r: &serde_json::Map<String, Value>, k: &str| {
        groundcheck::output::text::fmt_value(r.get(k))
    };
    if args.json {
        for r in flagged {
            outln!("{}", Value::Object(r.clone()));
        }
    } else if !flagged.is_empty() {
        let mut lines = vec![
            [
                "server",
                "tool",
                "window",
                "calls",
                "empty",
                "errors",
                "empty rate (baseline)",
                "error rate (baseline)",
                "flag",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for r in flagged {
            let flag = match (r.get("empty_spike"), r.get("error_spike")) {
                (Some(Value::Bool(true)), Some(Value::Bool(true))) => "empty+errors",
                (Some(Value::Bool(true)), _) => "empty",
                _ => "errors",
            };
            lines.push(vec![
                s(r, "server"),
                s(r, "tool"),
                s(r, "window_start"),
                n(r, "calls").to_string(),
                n(r, "empty").to_string(),
                n(r, "errors").to_string(),
                format!(
                    "{} ({})",
                    rate(r, "empty_rate"),
                    rate(r, "baseline_empty_rate")
                ),
                format!(
                    "{} ({})",
                    rate(r, "error_rate"),
                    rate(r, "baseline_error_rate")
                ),
                flag.to_string(),
            ]);
        }
        out!("{}", groundcheck::output::text::align_left(&lines));
    }
    let message = found.summary(&settings);
    eprintln!("{message}");
    if flagged.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(cmd) = &args.alert {
        let env = [
            ("GROUNDCHECK_ANOMALIES", flagged.len().to_string()),
            ("GROUNDCHECK_ANOMALIES_MESSAGE", message.clone()),
        ];
        super::common::alert("anomalies", cmd, &env).await;
    }
    Ok(ExitCode::from(1))
}
