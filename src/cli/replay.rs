//! `groundcheck replay`: recorded calls against a candidate tool schema.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use datafusion::dataframe::DataFrameWriteOptions;
use futures::TryStreamExt;
use groundcheck::ingest::jsonl::read_jsonl;
use groundcheck::location::Location;
use groundcheck::model::TOOL_SNAPSHOTS;
use groundcheck::scoring;
use serde_json::Value;

use super::common::{Input, Output, finish};

/// Check every recorded tool call in --data against a candidate schema, as if it had been
/// sent after the change (seed 002: turn a "likely breaking" diff into evidence). The
/// candidate is tool snapshot rows in JSONL (the `tool_snapshots` columns). Prints, per
/// tool the candidate defines, how many recorded calls would fail and why
/// (queries/replay_summary.sql). Writes nothing but, with --on-bad-line skip,
/// OUT/rejects.jsonl.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The candidate snapshot: a JSONL file (or folder, glob, s3:// URL) of tool_snapshots rows.
    #[arg(long, value_name = "PATH")]
    candidate: String,

    /// Exit with code 1 when any recorded call would fail under the candidate.
    #[arg(long)]
    fail_on_break: bool,

    #[command(flatten)]
    input: Input,

    #[command(flatten)]
    output: Output,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    let loc = Location::parse(&args.candidate)?;
    let store = session.ctx.runtime_env().object_store(&loc.store_url)?;
    let files = loc.list(&store).await?;
    if files.is_empty() {
        anyhow::bail!("--candidate {}: no files there", args.candidate);
    }
    let sources = files
        .into_iter()
        .map(|f| groundcheck::ingest::jsonl::SourceFile {
            store: store.clone(),
            meta: f.meta,
            display: f.display,
        })
        .collect();
    let batches: Vec<_> = read_jsonl(
        &TOOL_SNAPSHOTS,
        sources,
        session.read.clone(),
        session.rejects.clone(),
        None,
    )
    .try_collect()
    .await
    .map_err(groundcheck::Error::from)
    .context("cannot read the candidate")?;
    for b in batches {
        session
            .ctx
            .read_batch(b)?
            .write_table("candidate_snapshots", DataFrameWriteOptions::new())
            .await?;
    }
    let result = scoring::collect(
        &session.ctx,
        "SELECT * FROM replay_summary ORDER BY server, tool",
    )
    .await;
    finish(&session, &args.output.out, true)?;
    let (_, rows) = result.context("replay failed")?;
    let rows = scoring::rows_as_json(&rows)?;
    let mut broken = false;
    for r in &rows {
        let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        if n("failing") > 0 {
            broken = true;
            println!(
                "{} of {} recorded calls to {} ({}) would fail: {}",
                n("failing"),
                n("calls"),
                s("tool"),
                s("server"),
                s("reasons")
            );
        } else {
            println!(
                "all {} recorded calls to {} ({}) pass",
                n("calls"),
                s("tool"),
                s("server")
            );
        }
    }
    if rows.is_empty() {
        println!("no recorded call is to a tool the candidate defines");
    }
    Ok(if broken && args.fail_on_break {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
