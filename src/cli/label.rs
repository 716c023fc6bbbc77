//! `groundcheck label`: one label row per task, as seed 000's label.py writes them.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::scoring;

use super::common::{Input, Oracle, Output, finish};

/// Score every task (a case answered by a server in a run) against its gold record:
/// correct, grounded, failure class with evidence, grounding precision and recall,
/// definition match, freshness, policy violations, clarification turns, cost, and
/// whether a human must review it and why (queries/labels.sql). Reads cases, traces and
/// context from --data; writes OUT/labels.jsonl and OUT/labels.parquet (columns in
/// docs/outputs.md) and prints one line per task.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    input: Input,

    #[command(flatten)]
    output: Output,

    #[command(flatten)]
    oracle: Oracle,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    args.oracle.apply(&session).await?;
    let bar = args.output.progress(&session);
    let result = scoring::labels(&session.ctx).await;
    bar.finish_and_clear();
    finish(&session, &args.output.out, false)?;
    let (schema, batches) = result.context("labeling failed")?;
    let out = &args.output.out;
    scoring::write_jsonl(&out.join("labels.jsonl"), &batches)?;
    scoring::write_parquet(&out.join("labels.parquet"), schema, &batches)?;
    let rows = scoring::rows_as_json(&batches)?;
    let mut lines = vec![
        [
            "run_id", "server", "case_id", "correct", "grounded", "class", "review",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for r in &rows {
        let v = |k: &str| scoring::fmt_value(r.get(k));
        lines.push(vec![
            v("run_id"),
            v("server"),
            v("case_id"),
            v("correct"),
            v("grounded"),
            v("failure_class"),
            v("needs_human_review"),
        ]);
    }
    print!("{}", scoring::align(&lines));
    let review = rows
        .iter()
        .filter(|r| r.get("needs_human_review") == Some(&serde_json::Value::Bool(true)))
        .count();
    eprintln!(
        "{} tasks labeled, {review} need human review; wrote {} and {}",
        rows.len(),
        out.join("labels.jsonl").display(),
        out.join("labels.parquet").display()
    );
    Ok(ExitCode::SUCCESS)
}
