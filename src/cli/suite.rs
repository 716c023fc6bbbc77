//! `groundcheck suite`: keep the regression suite to the cases that expose grounding, and
//! rerun first what a change touches.

use std::collections::BTreeSet;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use groundcheck::Session;
use groundcheck::engine::session::Format;
use groundcheck::eval::report;
use groundcheck::output::write_atomic;
use object_store::ObjectStoreExt;
use serde_json::Value;

use super::common::{Chunking, Input, Oracle, Output, finish, write_labels};
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
        input: Input,
        #[command(flatten)]
        output: Output,
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
        input: Input,
        #[command(flatten)]
        output: Output,
    },
    /// Score again, against the current context, exactly the cases --old's differences
    /// touch: OUT/labels.* and the report for them. (The recorded traces are re-scored;
    /// a new agent run needs a runner fed OUT/suite/changed_cases.jsonl.)
    Rerun {
        /// The older project folder (local or s3://), as for `suite impact`.
        #[arg(long, value_name = "DIR")]
        old: String,
        #[command(flatten)]
        input: Input,
        #[command(flatten)]
        output: Output,
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

/// The lines of the cases file(s) whose case_id is in `ids`, unchanged.
async fn case_lines(session: &Session, ids: &BTreeSet<String>) -> anyhow::Result<Option<String>> {
    let Some(source) = session.sources.iter().find(|s| s.spec.name == "cases") else {
        return Ok(None);
    };
    if source.format != Some(Format::Jsonl) {
        return Ok(None);
    }
    let mut out = String::new();
    for f in &source.files {
        let bytes = source.store.get(&f.meta.location).await?.bytes().await?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            let id = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("case_id").and_then(Value::as_str).map(str::to_string));
            if id.is_some_and(|id| ids.contains(&id)) {
                out += line;
                out.push('\n');
            }
        }
    }
    Ok(Some(out))
}

fn write_rows(
    path: &std::path::Path,
    rows: &[serde_json::Map<String, Value>],
) -> anyhow::Result<()> {
    let text: String = rows
        .iter()
        .map(|r| Value::Object(r.clone()).to_string() + "\n")
        .collect();
    write_atomic(path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

async fn curate(input: Input, output: Output) -> anyhow::Result<ExitCode> {
    super::common::local_out(&output.out, "suite curate")?;
    let session = input.open().await?;
    let result = groundcheck::engine::query::collect(
        &session.ctx,
        "SELECT * FROM suite_curation ORDER BY case_id",
    )
    .await;
    finish(&session, &output.out, false)?;
    let rows = groundcheck::engine::query::rows_as_json(&result.context("curation failed")?.1)?;
    let mut kept = BTreeSet::new();
    for r in &rows {
        let id = r.get("case_id").and_then(Value::as_str).unwrap_or_default();
        let keep = r.get("keep").and_then(Value::as_bool).unwrap_or(true);
        let why = r.get("reasons").and_then(Value::as_str).unwrap_or_default();
        outln!("{} {id}: {why}", if keep { "KEEP" } else { "DROP" });
        if keep {
            kept.insert(id.to_string());
        }
    }
    let dir = output.out.join("suite");
    write_rows(&dir.join("curation.jsonl"), &rows)?;
    match case_lines(&session, &kept).await? {
        Some(text) => write_atomic(&dir.join("cases.jsonl"), text.as_bytes())?,
        None => eprintln!(
            "note: cases are not JSONL; the kept ids are in {}",
            dir.join("curation.jsonl").display()
        ),
    }
    outln!(
        "kept {} of {} cases -> {}",
        kept.len(),
        rows.len(),
        dir.join("cases.jsonl").display()
    );
    Ok(ExitCode::SUCCESS)
}

async fn impacted(
    old: &str,
    input: &Input,
    output: &Output,
) -> anyhow::Result<(Session, Vec<serde_json::Map<String, Value>>)> {
    let mut session = input.open().await?;
    session
        .register_old(old)
        .await
        .with_context(|| format!("cannot read --old {old}"))?;
    let result = groundcheck::engine::query::collect(
        &session.ctx,
        "SELECT * FROM case_impact ORDER BY case_id",
    )
    .await;
    finish(&session, &output.out, true)?;
    let rows = groundcheck::engine::query::rows_as_json(&result.context("impact failed")?.1)?;
    Ok((session, rows))
}

async fn impact(old: String, input: Input, output: Output) -> anyhow::Result<ExitCode> {
    super::common::local_out(&output.out, "suite impact")?;
    let (session, rows) = impacted(&old, &input, &output).await?;
    let ids: BTreeSet<String> = rows
        .iter()
        .filter_map(|r| r.get("case_id").and_then(Value::as_str).map(str::to_string))
        .collect();
    for r in &rows {
        outln!(
            "{}: {}",
            r.get("case_id").and_then(Value::as_str).unwrap_or_default(),
            r.get("reasons").and_then(Value::as_str).unwrap_or_default()
        );
    }
    let dir = output.out.join("suite");
    write_rows(&dir.join("impact.jsonl"), &rows)?;
    if let Some(text) = case_lines(&session, &ids).await? {
        write_atomic(&dir.join("changed_cases.jsonl"), text.as_bytes())?;
    }
    outln!(
        "{} case(s) touched by the change -> {}",
        ids.len(),
        dir.join("changed_cases.jsonl").display()
    );
    Ok(ExitCode::SUCCESS)
}

async fn rerun(
    old: String,
    input: Input,
    output: Output,
    oracle: Oracle,
    chunking: Chunking,
) -> anyhow::Result<ExitCode> {
    super::common::local_out(&output.out, "suite rerun")?;
    let (_, rows) = impacted(&old, &input, &output).await?;
    if rows.is_empty() {
        outln!("no case is touched by the change: nothing to rerun");
        return Ok(ExitCode::SUCCESS);
    }
    let ids: Vec<String> = rows
        .iter()
        .filter_map(|r| r.get("case_id").and_then(Value::as_str))
        .map(|id| format!("'{}'", id.replace('\'', "''")))
        .collect();
    let out = &output.out;
    write_labels(
        &input,
        &output,
        &oracle,
        &chunking,
        out,
        Some(format!("case_id IN ({})", ids.join(", "))),
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
