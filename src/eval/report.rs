//! The report over labels (`queries/report.sql`) and its printed forms: `report.json`
//! (exactly seed 000's fields, in the seed's order, one object per server and run), the
//! side-by-side table, the history rows, agreement with hand labels, the policy banner.
//!
//! The figures are the SQL; this module runs it in a fixed row order and lays it out.

use std::path::Path;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use serde_json::Value;

use crate::engine::context::single_partition;
use crate::engine::queries;
use crate::engine::query::{collect, rows_as_json};
use crate::error::{Error, Result};
use crate::eval::labels::ORDER;
use crate::output::html::page::NotScoredNote;
use crate::output::text::{align, fmt_value};
use crate::output::write_parquet;

/// The views a report context has over its `labels` table.
pub const VIEWS: &[&str] = &[
    "report",
    "agreement",
    "agreement_by_class",
    "agreement_differences",
    "policy_banner",
    "lineage_warnings",
    "not_scored",
];

/// A history folder a report is appended to (`report --history`).
#[derive(Debug, Clone)]
pub struct History {
    pub dir: std::path::PathBuf,
    pub at: chrono::DateTime<chrono::Utc>,
    pub note: Option<String>,
}

/// What `report` made of a labels file: the files written and the texts to print, in
/// the order they are printed.
#[derive(Debug, Clone)]
pub struct Made {
    pub files: Vec<std::path::PathBuf>,
    /// The history file this report was appended as, with `--history`.
    pub history: Option<std::path::PathBuf>,
    /// Tools whose lineage is missing (stderr).
    pub warnings: String,
    pub banner: String,
    pub table: String,
    pub not_scored: String,
    pub agreement: String,
}

/// `groundcheck report` after labeling: reads `out/labels.parquet` back (one partition,
/// in its order), writes `out/report.json` and `out/report.parquet`, appends the history
/// row when asked, and returns what is printed.
pub async fn make(out: &Path, history: Option<&History>) -> Result<Made> {
    let labels = over_labels(&out.join("labels.parquet"), None).await?;
    let (schema, rows) = report(&labels).await?;
    write(out, &schema, &rows)?;
    let history = match history {
        Some(h) => Some(
            append_history(
                &h.dir,
                (schema.clone(), rows.clone()),
                h.at,
                h.note.as_deref(),
            )
            .await?,
        ),
        None => None,
    };
    Ok(Made {
        files: vec![out.join("report.json"), out.join("report.parquet")],
        history,
        warnings: lineage_warnings(&labels).await?,
        banner: policy_banner(&labels).await?,
        table: report_table(&rows)?,
        not_scored: not_scored(&labels).await?,
        agreement: agreement(&labels).await?,
    })
}

/// Writes the report rows as `out/report.json` and `out/report.parquet`.
pub fn write(out: &Path, schema: &SchemaRef, report: &[RecordBatch]) -> Result<()> {
    let json = report_json(report)?;
    let path = out.join("report.json");
    crate::output::write_atomic(&path, json.as_bytes())
        .map_err(|e| Error::io(path.display(), e))?;
    write_parquet(&out.join("report.parquet"), Arc::clone(schema), report)
}

/// What `label` prints of each task, in this order.
pub const LABEL_COLUMNS: [&str; 7] = [
    "run_id", "server", "case_id", "correct", "grounded", "class", "review",
];

/// Calls `f` with each task's `LABEL_COLUMNS` (formatted) and whether it needs review,
/// streaming from the labels of `ctx` (`over_labels`): a million tasks stay on disk.
pub async fn for_each_label(
    ctx: &SessionContext,
    mut f: impl FnMut(Vec<String>, bool),
) -> Result<()> {
    let sql = "SELECT run_id, server, case_id, correct, grounded, failure_class AS class, \
               needs_human_review AS review FROM labels";
    crate::engine::query::for_each_row(ctx, sql, |r| {
        let cells = LABEL_COLUMNS.map(|k| fmt_value(r.get(k))).to_vec();
        f(cells, r.get("review") == Some(&Value::Bool(true)))
    })
    .await
}

/// A context whose `labels` table is a labels.parquet written by the labeler, read in
/// one partition in its order, optionally narrowed by `filter` (SQL over its columns),
/// with the report's views (`VIEWS`) over it.
pub async fn over_labels(path: &Path, filter: Option<&str>) -> Result<SessionContext> {
    let ctx = single_partition()?;
    let file = path.to_string_lossy();
    ctx.register_parquet("labels_file", file.as_ref(), Default::default())
        .await?;
    // Labels written before `not_scored` existed (a baseline kept from an earlier
    // release) read as scored on everything, as they were.
    let has_not_scored = ctx
        .table("labels_file")
        .await?
        .schema()
        .has_column_with_unqualified_name("not_scored");
    let extra = if has_not_scored {
        ""
    } else {
        ", CAST([] AS VARCHAR[]) AS not_scored"
    };
    let sql = match filter {
        None => format!("SELECT *{extra} FROM labels_file"),
        Some(f) => format!("SELECT *{extra} FROM labels_file WHERE {f} {ORDER}"),
    };
    let df = ctx.sql(&sql).await?;
    ctx.register_table("labels", df.into_view())?;
    crate::engine::tables::register_failure_classes(&ctx)?;
    queries::register_named(&ctx, VIEWS).await?;
    Ok(ctx)
}

/// The report view, one row per server and run in (server, run_id) order.
pub async fn report(ctx: &SessionContext) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    collect(ctx, "SELECT * FROM report ORDER BY server, run_id").await
}

/// The cases that flipped between two sides' labels (queries/label_flips.sql): case,
/// change, and whether it is a regression. Each side is a labels file and a filter.
pub async fn flips(
    before: (&Path, &str),
    after: (&Path, &str),
) -> Result<Vec<(String, String, bool)>> {
    let ctx = single_partition()?;
    for (name, (path, filter)) in [("labels_before", before), ("labels_after", after)] {
        let file = format!("{name}_file");
        ctx.register_parquet(&file, path.to_string_lossy().as_ref(), Default::default())
            .await?;
        let df = ctx
            .sql(&format!("SELECT * FROM {file} WHERE {filter}"))
            .await?;
        ctx.register_table(name, df.into_view())?;
    }
    queries::register_named(&ctx, &["label_flips"]).await?;
    // A view's ORDER BY does not survive a SELECT over it (DataFusion drops the sort):
    // order here, or the lines come in another order on each run.
    let (_, batches) = collect(&ctx, "SELECT * FROM label_flips ORDER BY case_id, change").await?;
    Ok(rows_as_json(&batches)?
        .into_iter()
        .map(|r| {
            let s = |k: &str| {
                r.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            (
                s("case_id"),
                s("change"),
                r.get("regression") == Some(&Value::Bool(true)),
            )
        })
        .collect())
}

/// seed 000's report.json fields, in its order.
pub const REPORT_FIELDS: &[&str] = &[
    "server",
    "run_id",
    "cases",
    "correct",
    "correct_and_grounded",
    "grounding_precision",
    "grounding_recall",
    "definition_match_rate",
    "freshness_pass_rate",
    "policy_violation_rate",
    "clarification_loops_per_task",
    "cost_total_usd",
    "cost_per_correct_answer_usd",
    "failures_by_class",
    "needs_human_review",
];

/// Seed 000's failure classes, the one list (`model::FAILURE_CLASSES`).
pub use crate::model::FAILURE_CLASSES as CLASSES;

/// `report.json`: an array with one object per server and run, fields in the seed's
/// order, NULL metrics as `null`.
pub fn report_json(batches: &[RecordBatch]) -> Result<String> {
    let rows = rows_as_json(batches)?;
    let mut out = String::from("[\n");
    for (i, row) in rows.iter().enumerate() {
        out.push_str("  {\n");
        for (j, f) in REPORT_FIELDS.iter().enumerate() {
            let v = row.get(*f).cloned().unwrap_or(Value::Null);
            let text = if *f == "failures_by_class" {
                let parts: Vec<String> = CLASSES
                    .iter()
                    .map(|c| format!("\"{c}\": {}", v.get(*c).cloned().unwrap_or(Value::from(0))))
                    .collect();
                format!("{{ {} }}", parts.join(", "))
            } else {
                v.to_string()
            };
            let comma = if j + 1 < REPORT_FIELDS.len() { "," } else { "" };
            out.push_str(&format!("    \"{f}\": {text}{comma}\n"));
        }
        out.push_str(if i + 1 < rows.len() {
            "  },\n"
        } else {
            "  }\n"
        });
    }
    out.push_str("]\n");
    Ok(out)
}

/// The report's fields as the side-by-side table and the HTML overview show them, as
/// paths into a report row: the seed's fields (failures_by_class by class), pass_rate,
/// correct_undecided and correct_not_grounded beside what they come from, and the tool-call figures when some
/// case lists expected calls (docs/tool-calls.md).
pub fn table_fields(rows: &[serde_json::Map<String, Value>]) -> Vec<String> {
    let n = |r: &serde_json::Map<String, Value>, k: &str| r.get(k).and_then(Value::as_i64);
    // A tool-call project (every task's case lists expected calls, BFCL's say) is
    // judged by its calls: their figures come first (issue #50).
    let calls_only = !rows.is_empty()
        && rows
            .iter()
            .all(|r| n(r, "tool_call_tasks").is_some_and(|t| t > 0 && Some(t) == n(r, "cases")));
    let mut out = Vec::new();
    if calls_only {
        out.extend(TOOL_CALL_FIELDS.iter().map(|f| f.to_string()));
    }
    for f in &REPORT_FIELDS[2..] {
        if *f == "failures_by_class" {
            out.extend(CLASSES.iter().map(|c| format!("{f}.{c}")));
            continue;
        }
        out.push(f.to_string());
        // The two figures the seed asks for in words, next to what they come from.
        match *f {
            "correct" => out.extend(["pass_rate".into(), "correct_undecided".into()]),
            "correct_and_grounded" => out.push("correct_not_grounded".into()),
            _ => {}
        }
    }
    if !calls_only
        && rows
            .iter()
            .any(|r| n(r, "tool_call_tasks").is_some_and(|t| t > 0))
    {
        out.extend(TOOL_CALL_FIELDS.iter().map(|f| f.to_string()));
    }
    out
}

/// The value at a `table_fields` path of a report row (`failures_by_class.semantic`).
pub fn field_value<'a>(row: &'a serde_json::Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut v = row.get(parts.next()?)?;
    for p in parts {
        v = v.get(p)?;
    }
    Some(v)
}

pub fn report_table(batches: &[RecordBatch]) -> Result<String> {
    let rows = rows_as_json(batches)?;
    let mut lines: Vec<Vec<String>> = Vec::new();
    let header: Vec<String> = std::iter::once("metric".to_string())
        .chain(rows.iter().map(|r| {
            format!(
                "{} ({})",
                r.get("server").and_then(Value::as_str).unwrap_or("?"),
                r.get("run_id").and_then(Value::as_str).unwrap_or("?")
            )
        }))
        .collect();
    lines.push(header);
    for f in table_fields(&rows) {
        let name = match f.strip_prefix("failures_by_class.") {
            Some(c) => format!("failures: {c}"),
            None => f.clone(),
        };
        let mut line = vec![name];
        for r in &rows {
            line.push(fmt_value(field_value(r, &f)));
        }
        lines.push(line);
    }
    Ok(align(&lines))
}

/// The report's tool-call figures (queries/report.sql), beside the seed's fields.
pub const TOOL_CALL_FIELDS: &[&str] = &[
    "tool_call_tasks",
    "tool_calls_valid_rate",
    "tool_selection_precision",
    "tool_selection_recall",
    "argument_accuracy",
    "tool_call_f1",
    "exact_sequence_rate",
];

/// How the automatic labels compare with the hand labels (queries/agreement*.sql).
#[derive(Debug, Clone, Default)]
pub struct Agreement {
    /// Hand-labeled tasks, and how many of them the automatic label agrees with.
    pub labeled: i64,
    pub agree: i64,
    /// Tasks with a review decision, and how many changed the automatic label.
    pub reviewed: i64,
    pub changed: i64,
    /// Per failure class, in precedence order.
    pub by_class: Vec<AgreementClass>,
    /// The hand-labeled tasks where they differ, in (run, server, case) order.
    pub differences: Vec<Difference>,
}

#[derive(Debug, Clone)]
pub struct AgreementClass {
    pub class: String,
    pub hand: i64,
    pub auto: i64,
    pub both: i64,
}

/// One task whose automatic label differs from its hand label; values as printed.
#[derive(Debug, Clone)]
pub struct Difference {
    pub case_id: String,
    pub server: String,
    /// (correct, grounded, failure class), automatic then hand.
    pub auto: [String; 3],
    pub hand: [String; 3],
}

/// The agreement views over the context's `labels` (a million labels stay on disk: only
/// the hand-labeled tasks' differences come back).
pub async fn agreement_rows(ctx: &SessionContext) -> Result<Agreement> {
    let (_, batches) = collect(ctx, "SELECT * FROM agreement").await?;
    let row = rows_as_json(&batches)?
        .into_iter()
        .next()
        .unwrap_or_default();
    let n =
        |r: &serde_json::Map<String, Value>, k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
    let mut out = Agreement {
        labeled: n(&row, "labeled"),
        agree: n(&row, "agree"),
        reviewed: n(&row, "reviewed"),
        changed: n(&row, "changed"),
        ..Default::default()
    };
    let (_, batches) = collect(ctx, "SELECT * FROM agreement_by_class ORDER BY precedence").await?;
    for r in rows_as_json(&batches)? {
        out.by_class.push(AgreementClass {
            class: fmt_value(r.get("class")),
            hand: n(&r, "hand"),
            auto: n(&r, "auto"),
            both: n(&r, "both"),
        });
    }
    let mut differs = ctx
        .sql("SELECT * FROM agreement_differences ORDER BY run_id, server, case_id")
        .await?
        .execute_stream()
        .await?;
    while let Some(b) = differs.next().await {
        for r in rows_as_json(&[b?])? {
            let s = |k: &str| fmt_value(r.get(k));
            out.differences.push(Difference {
                case_id: s("case_id"),
                server: s("server"),
                auto: [s("correct"), s("grounded"), s("failure_class")],
                hand: [
                    s("human_correct"),
                    s("human_grounded"),
                    s("human_failure_class"),
                ],
            });
        }
    }
    Ok(out)
}

/// `agreement_rows` as the terminal shows it.
pub async fn agreement(ctx: &SessionContext) -> Result<String> {
    let a = agreement_rows(ctx).await?;
    if a.labeled == 0 && a.reviewed == 0 {
        // BFCL's cases and other imported suites: nothing to compare, one line says so.
        return Ok(
            "agreement with hand labels: no task has a hand label or a review decision\n".into(),
        );
    }
    let mut out = format!(
        "agreement with hand labels: {} of {} hand-labeled tasks agree\n",
        a.agree, a.labeled
    );
    out.push_str(&format!(
        "human review decisions: {} task(s), {} changed the automatic label\n",
        a.reviewed, a.changed
    ));
    let mut lines = vec![["class", "hand", "auto", "both"].map(String::from).to_vec()];
    for c in &a.by_class {
        lines.push(vec![
            format!("  {}", c.class),
            c.hand.to_string(),
            c.auto.to_string(),
            c.both.to_string(),
        ]);
    }
    out.push_str(&align(&lines));
    for d in &a.differences {
        out.push_str(&format!(
            "  differs: {} on {}: auto correct={} grounded={} class={}; hand correct={} grounded={} class={}\n",
            d.case_id, d.server, d.auto[0], d.auto[1], d.auto[2], d.hand[0], d.hand[1], d.hand[2],
        ));
    }
    Ok(out)
}

/// The `not_scored` view's rows, in (server, figure) order.
pub async fn not_scored_rows(ctx: &SessionContext) -> Result<Vec<NotScoredNote>> {
    let (_, batches) = collect(ctx, "SELECT * FROM not_scored ORDER BY server, figure").await?;
    Ok(rows_as_json(&batches)?
        .iter()
        .map(|r| {
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
            NotScoredNote {
                server: s("server"),
                figure: s("figure"),
                tasks: n("tasks"),
                of_tasks: n("of_tasks"),
                reason: s("reason"),
            }
        })
        .collect())
}

/// `not_scored_rows` as the terminal shows them: a line each, empty when everything is
/// scored.
pub async fn not_scored(ctx: &SessionContext) -> Result<String> {
    Ok(not_scored_rows(ctx)
        .await?
        .iter()
        .map(|r| {
            format!(
                "not scored on {}: {} in {} of {} task(s): {}\n",
                r.server, r.figure, r.tasks, r.of_tasks, r.reason
            )
        })
        .collect())
}

/// Shown before anything else: seed 000 calls any policy violation a release blocker
/// (queries/policy_banner.sql).
pub async fn policy_banner(ctx: &SessionContext) -> Result<String> {
    let mut out: String = policy_violations(ctx)
        .await?
        .into_iter()
        .map(|l| l + "\n")
        .collect();
    if !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// The banner's sentences, one per server with a violation.
pub async fn policy_violations(ctx: &SessionContext) -> Result<Vec<String>> {
    let (_, batches) = collect(ctx, "SELECT * FROM policy_banner ORDER BY server").await?;
    Ok(rows_as_json(&batches)?
        .iter()
        .map(|r| {
            let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
            format!(
                "POLICY VIOLATIONS on {}: {} of {} calls returned rows or columns the user may not see (a release blocker)",
                r.get("server").and_then(Value::as_str).unwrap_or("?"),
                n("violations"),
                n("calls")
            )
        })
        .collect())
}

/// One warning per server and tool without lineage whose tasks needed catalog fields
/// (queries/lineage_warnings.sql).
pub async fn lineage_warnings(ctx: &SessionContext) -> Result<String> {
    Ok(lineage_gaps(ctx)
        .await?
        .into_iter()
        .map(|l| format!("warning: {l}\n"))
        .collect())
}

/// The lineage warnings' sentences, one per server and reason.
pub async fn lineage_gaps(ctx: &SessionContext) -> Result<Vec<String>> {
    let (_, batches) = collect(
        ctx,
        "SELECT * FROM lineage_warnings ORDER BY server, reason",
    )
    .await?;
    Ok(rows_as_json(&batches)?
        .iter()
        .map(|r| {
            format!(
                "{}: {} ({} task(s) scored ungrounded for it)",
                r.get("server").and_then(Value::as_str).unwrap_or("?"),
                r.get("reason").and_then(Value::as_str).unwrap_or("?"),
                r.get("tasks").and_then(Value::as_i64).unwrap_or(0)
            )
        })
        .collect())
}

/// Appends a report to a history folder as `report_history` rows
/// (queries/report_history_rows.sql), in a file of its own named by the time.
pub async fn append_history(
    dir: &Path,
    report: (SchemaRef, Vec<RecordBatch>),
    at: chrono::DateTime<chrono::Utc>,
    note: Option<&str>,
) -> Result<std::path::PathBuf> {
    let recorded_at = at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let ctx = single_partition()?;
    let (schema, batches) = report;
    ctx.register_table(
        "report",
        Arc::new(MemTable::try_new(schema, vec![batches])?),
    )?;
    queries::register_named(&ctx, &["report_history_rows"]).await?;
    let (_, long) = collect(
        &ctx,
        "SELECT server, run_id, metric, value FROM report_history_rows \
         ORDER BY server, run_id, position",
    )
    .await?;
    let rows: Vec<Value> = rows_as_json(&long)?
        .into_iter()
        .map(|mut r| {
            r.insert("recorded_at".into(), Value::from(recorded_at.as_str()));
            r.insert("note".into(), note.map(Value::from).unwrap_or(Value::Null));
            Value::Object(r)
        })
        .collect();
    let schema = crate::model::REPORT_HISTORY.schema.clone();
    let mut decoder = arrow::json::ReaderBuilder::new(schema.clone()).build_decoder()?;
    decoder.serialize(&rows)?;
    let rows = vec![
        decoder
            .flush()?
            .unwrap_or_else(|| RecordBatch::new_empty(schema.clone())),
    ];
    let path = dir.join(format!("report-{}.parquet", recorded_at.replace(':', "")));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), e))?;
    write_parquet(&path, schema, &rows)?;
    Ok(path)
}
