//! `groundcheck suite`: keep the regression suite to the cases that expose grounding, and
//! rerun first what a change touches.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use groundcheck::eval::{report, suite};

use super::common::{Chunking, DataArgs, Oracle, OutArgs, finish, write_labels};
use super::print::{out, outln};

/// The regression suite (seed 000: harvest, keep what exposes grounding, rerun on every
/// change).
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Keep the cases some configuration (a server in a run) fails, passes ungrounded or
    /// leaves undecided; drop those every configuration passes grounded
    /// (queries/suite/curation.sql). Prints each case with why; writes
    /// OUT/suite/curation.jsonl and OUT/suite/cases.jsonl (the kept cases, as given).
    Curate {
        #[command(flatten)]
        input: DataArgs,
        #[command(flatten)]
        output: OutArgs,
    },
    /// List the cases an older version of the context or tools (--old, a project folder
    /// with context/ and snapshots/) would score differently from now
    /// (queries/suite/impact.sql). Writes OUT/suite/impact.jsonl and
    /// OUT/suite/changed_cases.jsonl (those cases, as given, for a runner).
    Impact {
        /// The older project folder (local or s3://): its catalog, glossary, policies and
        /// tool snapshots are compared with --data's.
        #[arg(long, value_name = "DIR")]
        old: String,
        #[command(flatten)]
        input: DataArgs,
        #[command(flatten)]
        output: OutArgs,
    },
    /// Score again, against the current context, exactly the cases --old's differences
    /// touch: OUT/labels.* and the report for them. (The recorded traces are re-scored;
    /// a new agent run needs a runner fed OUT/suite/changed_cases.jsonl.)
    Rerun {
        /// The older project folder (local or s3://), as for `suite impact`.
        #[arg(long, value_name = "DIR")]
        old: String,
        #[command(flatten)]
        input: DataArgs,
        #[command(flatten)]
        output: OutArgs,
        #[command(flatten)]
        oracle: Oracle,
        #[command(flatten)]
        chunking: Chunking,
    },
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Curate { input, output } => curate(input, output).await,
        Command::Impact { old, input, output } => impact(old, input, output).await,
        Command::Rerun {
            old,
            input,
            output,
            oracle,
            chunking,
        } => rerun(old, input, output, oracle, chunking).await,
    }
}

async fn curate(input: DataArgs, output: OutArgs) -> anyhow::Result<ExitCode> {
    super::common::local_out(&output.out, "suite curate")?;
    let session = input.open().await?;
    let result = suite::curate(&session, &output.out).await;
    finish(&session, &output.out, false)?;
    let c = result.context("curation failed")?;
    for r in &c.rows {
        let id = suite::text(r, "case_id");
        let keep = c.kept.contains(&id);
        outln!(
            "{} {id}: {}",
            if keep { "KEEP" } else { "DROP" },
            suite::text(r, "reasons")
        );
    }
    let dir = output.out.join("suite");
    if c.cases.is_none() {
        eprintln!(
            "note: cases are not JSONL; the kept ids are in {}",
            dir.join("curation.jsonl").display()
        );
    }
    outln!(
        "kept {} of {} cases -> {}",
        c.kept.len(),
        c.rows.len(),
        dir.join("cases.jsonl").display()
    );
    Ok(ExitCode::SUCCESS)
}

async fn impact(old: String, input: DataArgs, output: OutArgs) -> anyhow::Result<ExitCode> {
    super::common::local_out(&output.out, "suite impact")?;
    let mut session = input.open().await?;
    let result = suite::impact(&mut session, &old, &output.out).await;
    finish(&session, &output.out, true)?;
    let i = result.context("impact failed")?;
    for r in &i.rows {
        outln!(
            "{}: {}",
            suite::text(r, "case_id"),
            suite::text(r, "reasons")
        );
    }
    outln!(
        "{} case(s) touched by the change -> {}",
        i.rows.len(),
        output.out.join("suite/changed_cases.jsonl").display()
    );
    Ok(ExitCode::SUCCESS)
}

async fn rerun(
    old: String,
    input: DataArgs,
    output: OutArgs,
    oracle: Oracle,
    chunking: Chunking,
) -> anyhow::Result<ExitCode> {
    super::common::local_out(&output.out, "suite rerun")?;
    let mut session = input.open().await?;
    let result = suite::impacted(&mut session, &old).await;
    finish(&session, &output.out, true)?;
    let rows = result.context("impact failed")?;
    if rows.is_empty() {
        outln!("no case is touched by the change: nothing to rerun");
        return Ok(ExitCode::SUCCESS);
    }
    let out = &output.out;
    write_labels(
        &input,
        &output,
        &oracle,
        &chunking,
        out,
        Some(suite::case_filter(&rows)),
    )
    .await
    .context("labeling failed")?;
    let ctx = report::over_labels(&out.join("labels.parquet"), None).await?;
    let (_, report) = report::report(&ctx).await?;
    out!("{}", report::report_table(&report)?);
    outln!(
        "re-scored {} case(s) the change touches against the current context -> {}",
        rows.len(),
        out.join("labels.jsonl").display()
    );
    Ok(ExitCode::SUCCESS)
}
