//! `groundcheck replay`: recorded calls against a candidate tool schema.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use datafusion::dataframe::DataFrameWriteOptions;
use serde_json::Value;

use super::common::{Input, Output, finish};
use super::print::outln;

/// Check every recorded tool call in --data against a candidate schema, as if it had been
/// sent after the change (seed 002: turn a "likely breaking" diff into evidence). The
/// candidate is any snapshot groundcheck reads: stored tool_snapshots rows (JSONL,
/// Parquet, a folder, a glob, s3://; PATH@CAPTURED_AT), a tools/list .json, or a live
/// server (stdio:CMD, an http(s) URL). Prints, per tool the candidate defines, how many
/// recorded calls would fail and why (queries/replay_summary.sql). Exit 2 when no
/// recorded call is to the candidate's server.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The candidate snapshot (stored rows, a tools/list .json, stdio:CMD or a URL).
    #[arg(long, value_name = "SNAPSHOT")]
    candidate: String,

    /// The server the recorded calls were made to, when the candidate does not name it
    /// (a tools/list file) or holds several (stored rows).
    #[arg(long, value_name = "NAME")]
    server: Option<String>,

    /// Seconds a live candidate server may take to list its tools.
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = super::common::parse_seconds)]
    timeout: f64,

    /// Exit with code 1 when any recorded call would fail under the candidate.
    #[arg(long)]
    fail_on_break: bool,

    #[command(flatten)]
    input: Input,

    #[command(flatten)]
    pub(crate) output: Output,
    /// Give a stdio server this environment variable too (repeatable; `PREFIX*` for a
    /// family, `*` for all). By default it gets only PATH, HOME, locale, time zone,
    /// proxies, certificates and GROUNDCHECK_*: not cloud credentials or tokens.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    let timeout = std::time::Duration::from_secs_f64(args.timeout.max(0.1));
    use groundcheck::drift::snapshot::Source;
    // Stored rows may hold several servers: each keeps its own rows (the recorded calls
    // are matched by server). Any other candidate is one server's snapshot.
    let server = match Source::parse(&args.candidate) {
        Source::Stored { path, at } if args.server.is_none() => {
            let table =
                groundcheck::Session::open_table(&groundcheck::model::TOOL_SNAPSHOTS, &path)
                    .await
                    .with_context(|| format!("--candidate {}", args.candidate))?;
            let q = match &at {
                Some(t) => format!(
                    "SELECT * FROM tool_snapshots WHERE CAST(captured_at AS VARCHAR) = '{}'",
                    t.replace('\'', "''")
                ),
                None => "SELECT * FROM tool_snapshots".to_string(),
            };
            let (_, batches) = groundcheck::engine::query::collect(&table.ctx, &q).await?;
            if batches.iter().all(|b| b.num_rows() == 0) {
                anyhow::bail!(
                    "--candidate {}: no tool snapshot rows there",
                    args.candidate
                );
            }
            for b in batches {
                session
                    .ctx
                    .read_batch(b)?
                    .write_table("candidate_snapshots", DataFrameWriteOptions::new())
                    .await?;
            }
            "the candidate's servers".to_string()
        }
        _ => {
            let snap = groundcheck::drift::snapshot::load(
                &args.candidate,
                args.server.as_deref(),
                timeout,
                &args.pass_env,
            )
            .await
            .with_context(|| format!("--candidate {}", args.candidate))?;
            let Some(server) = args.server.clone().or(snap.server.clone()) else {
                anyhow::bail!(
                    "--candidate {} names no server, so no recorded call can be matched to it: \
                     give --server NAME (the server the recorded calls were made to)",
                    args.candidate
                );
            };
            let rows = groundcheck::drift::snapshot::rows(&snap, &server, "1970-01-01T00:00:00Z");
            let batch = groundcheck::drift::snapshot::batch(&rows)?;
            session
                .ctx
                .read_batch(batch)?
                .write_table("candidate_snapshots", DataFrameWriteOptions::new())
                .await?;
            format!("server '{server}'")
        }
    };
    let result = groundcheck::engine::query::collect(
        &session.ctx,
        "SELECT * FROM replay_summary ORDER BY server, tool",
    )
    .await;
    finish(&session, &args.output.out, true)?;
    let (_, rows) = result.context("replay failed")?;
    let rows = groundcheck::engine::query::rows_as_json(&rows)?;
    if rows.is_empty() {
        anyhow::bail!(groundcheck::Error::Input(format!(
            "no recorded call in {} is to a tool of {server} that the candidate defines{}",
            args.input.data,
            groundcheck::drift::recorded_servers(&session).await
        )));
    }
    let mut broken = false;
    for r in &rows {
        let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        if n("failing") > 0 {
            broken = true;
            outln!(
                "{} of {} recorded calls to {} ({}) would fail: {}",
                n("failing"),
                n("calls"),
                s("tool"),
                s("server"),
                s("reasons")
            );
        } else {
            outln!(
                "all {} recorded calls to {} ({}) pass",
                n("calls"),
                s("tool"),
                s("server")
            );
        }
    }
    Ok(if broken && args.fail_on_break {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
