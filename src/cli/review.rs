//! `groundcheck review export|import`: the human review loop.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::Value;

use super::common::{Chunking, DataArgs, Oracle, OutArgs, write_labels};
use super::print::outln;

/// Hand the tasks the scorer was unsure of to a person, and take their decisions back.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write OUT/review.jsonl: one line per task that needs human review, with the reasons,
    /// the automatic label, the evidence, the gold record and the trace excerpt a reviewer
    /// needs, and an empty `decision` to fill in. Reads --data.
    Export(Box<ExportArgs>),
    /// Read a filled-in review.jsonl and merge its decisions into DATA/reviews.jsonl (the
    /// `reviews` table; written under a temporary name, then renamed). A decision wins
    /// over the automatic label from then on. Lines whose decision is empty are skipped
    /// and counted.
    Import(ImportArgs),
}

#[derive(Debug, ClapArgs)]
struct ExportArgs {
    #[command(flatten)]
    input: DataArgs,
    #[command(flatten)]
    output: OutArgs,
    #[command(flatten)]
    oracle: Oracle,
    #[command(flatten)]
    chunking: Chunking,
}

#[derive(Debug, ClapArgs)]
struct ImportArgs {
    /// The review file, as export wrote it, with decisions filled in.
    file: PathBuf,
    /// The project folder to merge the decisions into (local).
    #[arg(long, default_value = "datasets/demo")]
    data: PathBuf,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Export(a) => export(*a).await,
        Command::Import(a) => import(a),
    }
}

async fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    super::common::local_out(&args.output.out, "review export")?;
    // Labeled once (the one labeling path), into a folder read below and then removed;
    // the questions and steps of the tasks to review come from the project.
    let scratch = super::common::scratch(&args.output.out)?;
    let quiet = OutArgs {
        quiet: true,
        ..args.output.clone()
    };
    let (labeler, _) = write_labels(
        &args.input,
        &quiet,
        &args.oracle,
        &args.chunking,
        scratch.path(),
        None,
    )
    .await
    .context("labeling failed")?;
    let session = args.input.open().await?;
    let text = groundcheck::eval::review::export(&session, &scratch.path().join("labels.parquet"))
        .await
        .context("cannot read the labels")?;
    drop(labeler);
    drop(scratch);
    let path = args.output.out.join("review.jsonl");
    groundcheck::output::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!(
        "{} task(s) need review; wrote {}",
        text.lines().count(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn import(args: ImportArgs) -> anyhow::Result<ExitCode> {
    if args.data.to_string_lossy().contains("://") {
        bail!(
            "review import writes into a local project folder, not {}",
            args.data.display()
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut decided = Vec::new();
    let mut skipped = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match groundcheck::eval::review::decision(&args.file, i + 1, line)? {
            Some(d) => decided.push(d),
            None => skipped += 1,
        }
    }
    let target = args.data.join("reviews.jsonl");
    let mut out = match std::fs::read_to_string(&target) {
        Ok(existing) => existing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", target.display())),
    };
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for d in &decided {
        out.push_str(&Value::Object(d.clone()).to_string());
        out.push('\n');
    }
    groundcheck::output::write_atomic(&target, out.as_bytes())
        .with_context(|| format!("cannot write {}", target.display()))?;
    outln!(
        "imported {} decision(s) into {} ({skipped} line(s) without a decision skipped)",
        decided.len(),
        target.display()
    );
    Ok(ExitCode::SUCCESS)
}
