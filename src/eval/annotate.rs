//! Each labeled task's verdicts as annotations on the span of its answer
//! (`answer_span_id`, kept by the labels for imported and collected traces): one per task
//! and figure, named `groundcheck.*` (docs/trace-stores.md). `output::annotate` sends them.

use std::path::Path;

use serde_json::Value;

use crate::engine::query::{collect, rows_as_json};
use crate::error::{Error, Result};
use crate::output::annotate::Annotation;

/// What a labels folder has to send.
#[derive(Debug, Default)]
pub struct Planned {
    pub annotations: Vec<Annotation>,
    /// Tasks whose answer came from no span (hand-written traces, the gateway's).
    pub without_span: usize,
}

/// The annotations of every task in `dir/labels.parquet` that has an answer span, in the
/// labels' order: correct, grounded, failure_class and review always; then each figure the
/// task has something to say about (definition match, freshness, policy, cost, tool
/// calls); each a label (and a score where the figure is a yes or no or a number) with
/// what explains it. A figure the project has nothing to measure it against is not sent.
pub async fn plan(dir: &Path) -> Result<Planned> {
    let file = dir.join("labels.parquet");
    if !file.is_file() {
        return Err(Error::Config(format!(
            "{}: no labels.parquet (annotate a folder written by `label` or `report`)",
            dir.display()
        )));
    }
    let ctx = crate::eval::report::over_labels(&file, None).await?;
    let has_spans = ctx
        .table("labels")
        .await?
        .schema()
        .has_column_with_unqualified_name("answer_span_id");
    if !has_spans {
        return Err(Error::Input(format!(
            "{}: labels written before they kept span ids; label the traces again",
            file.display()
        )));
    }
    let sql = "SELECT trace_ids[1] AS trace_id, answer_span_id, correct, grounded, failure_class, needs_human_review, \
               review_reasons, failure_evidence, not_scored, definition_match, freshness_bound, \
               freshness_pass, policy_violations, cost_usd, cost_source, tool_calls_valid, \
               tool_calls_reason FROM labels \
               ORDER BY run_id, server, case_id";
    let (_, batches) = collect(&ctx, sql).await?;
    let mut out = Planned::default();
    for r in rows_as_json(&batches)? {
        let Some(span) = r.get("answer_span_id").and_then(Value::as_str) else {
            out.without_span += 1;
            continue;
        };
        let list = |k: &str| -> Vec<String> {
            r.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let yes_no = |k: &str, yes: &str, no: &str| match r.get(k).and_then(Value::as_bool) {
            Some(true) => (yes.to_string(), Some(1.0)),
            Some(false) => (no.to_string(), Some(0.0)),
            None => ("undecided".to_string(), None),
        };
        let joined = |v: Vec<String>| (!v.is_empty()).then(|| v.join("; "));
        let mut add = |name, (label, score): (String, Option<f64>), explanation| {
            out.annotations.push(Annotation {
                span_id: span.to_string(),
                trace_id: r
                    .get("trace_id")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                name,
                label,
                score,
                explanation,
            })
        };
        add(
            "groundcheck.correct",
            yes_no("correct", "correct", "wrong"),
            None,
        );
        let mut grounded = yes_no("grounded", "grounded", "not grounded");
        if grounded.1.is_none() && list("not_scored").iter().any(|f| f == "grounding") {
            grounded.0 = "not scored".to_string();
        }
        add("groundcheck.grounded", grounded, None);
        let class = r
            .get("failure_class")
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_string();
        add(
            "groundcheck.failure_class",
            (class, None),
            joined(list("failure_evidence")),
        );
        let review = r.get("needs_human_review").and_then(Value::as_bool) == Some(true);
        add(
            "groundcheck.review",
            (
                if review { "needs review" } else { "decided" }.to_string(),
                None,
            ),
            joined(list("review_reasons")),
        );
        let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
        if r.get("definition_match").is_some_and(|v| !v.is_null()) {
            add(
                "groundcheck.definition_match",
                yes_no("definition_match", "matches", "does not match"),
                None,
            );
        }
        if r.get("freshness_bound").and_then(Value::as_bool) == Some(true) {
            add(
                "groundcheck.freshness",
                yes_no("freshness_pass", "fresh", "stale"),
                None,
            );
        }
        if let Some(n) = r.get("policy_violations").and_then(Value::as_i64) {
            let label = if n == 0 {
                "within policy".to_string()
            } else {
                format!("{n} violating call(s)")
            };
            add("groundcheck.policy", (label, Some(n as f64)), None);
        }
        if let Some(usd) = r.get("cost_usd").and_then(Value::as_f64) {
            let source = text("cost_source").unwrap_or_else(|| "priced".to_string());
            add("groundcheck.cost_usd", (source, Some(usd)), None);
        }
        if r.get("tool_calls_valid").is_some_and(|v| !v.is_null()) {
            add(
                "groundcheck.tool_calls",
                yes_no("tool_calls_valid", "valid", "invalid"),
                text("tool_calls_reason"),
            );
        }
    }
    Ok(out)
}
