//! `groundcheck ingest`: every input table to Parquet, in the project layout.

use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use groundcheck::engine::ingest::{IngestOptions, ingest, progress_bar};
use groundcheck::engine::session::TableFormat;

use super::common::{DataArgs, OutArgs, finish_set};
use super::print::outln;

/// Convert the project's JSONL (and Parquet) inputs to Parquet under --out, in the same
/// layout (OUT/cases.parquet, OUT/traces.parquet or OUT/traces/COL=value/, OUT/context/…,
/// OUT/snapshots.parquet), so that `--data OUT` reads them back. Each file is written
/// under a temporary name and renamed when complete. Prints one line per table.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    pub(crate) output: OutArgs,

    /// Split every table that has this column (e.g. run_id) into COL=value/ folders.
    #[arg(long, value_name = "COLUMN")]
    partition_by: Option<String>,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    let out = &args.output.out;
    if let (Ok(a), Ok(b)) = (
        std::fs::canonicalize(out),
        std::fs::canonicalize(&args.input.data),
    ) && a == b
    {
        bail!(
            "--out {} is the input folder; choose another",
            out.display()
        );
    }
    if let Some(col) = &args.partition_by
        && !session.sources.iter().any(|s| s.spec.col(col).is_some())
    {
        bail!("--partition-by {col}: no table has that column");
    }
    let jsonl_bytes: u64 = session
        .sources
        .iter()
        .filter(|s| s.format == Some(TableFormat::Jsonl))
        .map(|s| s.bytes())
        .sum();
    let (bar, progress) = progress_bar(jsonl_bytes);
    if args.output.quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let opts = IngestOptions {
        partition_by: args.partition_by.clone(),
    };
    let result = ingest(&session, out, &opts, Some(progress)).await;
    bar.finish_and_clear();
    // Rejects are written even when a later table failed: they were read and must not be lost.
    finish_set(&session, out, args.output.quiet)?;
    let done = result.with_context(|| format!("ingest into {} failed", out.display()))?;
    for t in &done {
        outln!(
            "{:<16} {:>10} rows from {:>4} file(s) -> {}",
            t.table,
            t.rows,
            t.files_read,
            out.join(&t.output).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
