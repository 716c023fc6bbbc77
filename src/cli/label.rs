//! `groundcheck label`: one label row per task, as seed 000's label.py writes them.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use groundcheck::eval::report;

use super::print::outln;

use super::common::{Chunking, DataArgs, Oracle, OutArgs, write_labels};

/// Score every task (a case answered by a server in a run) against its gold record:
/// correct, grounded, failure class with evidence, grounding precision and recall,
/// definition match, freshness, policy violations, clarification turns, cost, and
/// whether a human must review it and why (queries/labels.sql). Reads cases, traces and
/// context from --data; writes OUT/labels.jsonl and OUT/labels.parquet (columns in
/// docs/outputs.md) and prints one line per task.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    pub(crate) output: OutArgs,

    #[command(flatten)]
    oracle: Oracle,

    #[command(flatten)]
    chunking: Chunking,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let out = &args.output.out;
    write_labels(
        &args.input,
        &args.output,
        &args.oracle,
        &args.chunking,
        out,
        None,
    )
    .await?;
    // Printed from the file in two passes (widths, then lines): a million tasks stay on disk.
    let ctx = report::over_labels(&out.join("labels.parquet"), None).await?;
    let header = report::LABEL_COLUMNS.map(String::from).to_vec();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    let (mut tasks, mut review) = (0u64, 0u64);
    report::for_each_label(&ctx, |cells, needs_review| {
        for (w, c) in widths.iter_mut().zip(&cells) {
            *w = (*w).max(c.chars().count());
        }
        tasks += 1;
        review += u64::from(needs_review);
    })
    .await?;
    let line = |cells: &[String]| {
        outln!(
            "{}",
            groundcheck::output::text::aligned_line(&widths, cells, false)
        )
    };
    line(&header);
    report::for_each_label(&ctx, |cells, _| line(&cells)).await?;
    eprint!("{}", report::lineage_warnings(&ctx).await?);
    eprintln!(
        "{tasks} tasks labeled, {review} need human review; wrote {} and {}",
        out.join("labels.jsonl").display(),
        out.join("labels.parquet").display()
    );
    Ok(ExitCode::SUCCESS)
}
