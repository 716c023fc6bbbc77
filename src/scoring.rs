//! Running the scoring SQL (`queries/labels.sql`, `queries/report.sql`) and writing its
//! outputs: `labels.jsonl` / `labels.parquet`, `report.json` / `report.parquet`.
//!
//! The metrics are the SQL; this module only runs it in a fixed row order and writes the
//! results, each file under a temporary name and then renamed. `report.json` has exactly
//! seed 000's fields, in the seed's order, one object per server and run.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, SchemaRef};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::output::ParquetFile;
use crate::output::Rebatcher;
use crate::queries;
use crate::session::new_context;

pub const LABELS_ORDER: &str = "ORDER BY run_id, server, case_id";

/// The labels of every task, ordered by (run_id, server, case_id).
pub async fn labels(ctx: &SessionContext) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    collect(ctx, &format!("SELECT * FROM labels {LABELS_ORDER}")).await
}

/// Runs a query and returns its rows in the schema the plan declares. Some DataFusion
/// functions hand back view types (`Utf8View`) where the plan says `Utf8`; such columns
/// are cast, so every batch matches the declared schema (Parquet writers insist).
pub async fn collect(ctx: &SessionContext, sql: &str) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let df = ctx.sql(sql).await?;
    let schema = plain_schema(df.schema().as_arrow());
    let batches = df.collect().await?;
    let batches = batches
        .into_iter()
        .map(|b| conform(&schema, b))
        .collect::<Result<Vec<_>>>()?;
    Ok((schema, batches))
}

/// The schema with view types (`Utf8View`) replaced by their plain forms: outputs carry
/// plain string types, whatever the plan used inside, so that every reader of our Parquet
/// sees the same, documented schema.
pub fn plain_schema(declared: &arrow::datatypes::Schema) -> SchemaRef {
    Arc::new(arrow::datatypes::Schema::new(
        declared
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
            .collect::<Vec<_>>(),
    ))
}

/// The type with view types replaced by their plain forms, nested ones too.
fn plain(t: &DataType) -> DataType {
    match t {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        DataType::List(f) => DataType::List(Arc::new(
            f.as_ref().clone().with_data_type(plain(f.data_type())),
        )),
        DataType::LargeList(f) => DataType::LargeList(Arc::new(
            f.as_ref().clone().with_data_type(plain(f.data_type())),
        )),
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The batch in `schema`'s types (casting columns whose types differ).
pub fn conform(schema: &SchemaRef, batch: RecordBatch) -> Result<RecordBatch> {
    if batch.schema().fields() == schema.fields() {
        return Ok(batch.with_schema(schema.clone())?);
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c.clone())
            } else {
                arrow::compute::cast(c, f.data_type())
            }
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// The report over a set of labels: runs `queries/report.sql` in a context of its own
/// where those labels are the `labels` table.
pub async fn report_of(
    schema: SchemaRef,
    labels: Vec<RecordBatch>,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let ctx = report_context()?;
    let labels = rebatch(&schema, &labels)?;
    ctx.register_table("labels", Arc::new(MemTable::try_new(schema, vec![labels])?))?;
    report_in(&ctx).await
}

/// The cases that flipped between two sides' labels (queries/label_flips.sql): case,
/// change, and whether it is a regression.
pub async fn flips(
    before: (SchemaRef, Vec<RecordBatch>),
    after: (SchemaRef, Vec<RecordBatch>),
) -> Result<Vec<(String, String, bool)>> {
    let ctx = new_context()?;
    for (name, (schema, batches)) in [("labels_before", before), ("labels_after", after)] {
        ctx.register_table(name, Arc::new(MemTable::try_new(schema, vec![batches])?))?;
    }
    let q = queries::all()?
        .into_iter()
        .find(|q| q.name == "label_flips")
        .ok_or_else(|| Error::Input("queries/label_flips.sql is missing".into()))?;
    let (_, batches) = collect(&ctx, &q.sql).await?;
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

/// A context whose `labels` table is a labels.parquet written by `label` or `report`.
pub async fn labels_file_context(path: &Path) -> Result<SessionContext> {
    let ctx = report_context()?;
    ctx.register_parquet(
        "labels",
        path.to_string_lossy().as_ref(),
        Default::default(),
    )
    .await?;
    Ok(ctx)
}

/// One partition, rows in fixed batches: floating-point sums (cost_total_usd) then add in
/// the labels' order whatever batches they came in (a cluster's differed in the last
/// digit at 1M tasks).
fn report_context() -> Result<SessionContext> {
    let ctx = new_context()?;
    ctx.state_ref()
        .write()
        .config_mut()
        .options_mut()
        .execution
        .target_partitions = 1;
    Ok(ctx)
}

/// `queries/report.sql` over the context's `labels`, one row per server and run.
pub async fn report_in(ctx: &SessionContext) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let report = queries::all()?
        .into_iter()
        .find(|q| q.name == "report")
        .ok_or_else(|| Error::Input("queries/report.sql is missing".into()))?;
    collect(
        ctx,
        &format!(
            "SELECT * FROM ({}) AS r ORDER BY server, run_id",
            report.sql
        ),
    )
    .await
}

/// Batches as JSON objects, one per row (arrow's JSON writer: NULL fields left out).
pub fn rows_as_json(batches: &[RecordBatch]) -> Result<Vec<serde_json::Map<String, Value>>> {
    let mut buf = Vec::new();
    {
        let mut w = arrow::json::LineDelimitedWriter::new(&mut buf);
        for b in batches {
            w.write(b)?;
        }
        w.finish()?;
    }
    let text = String::from_utf8(buf).map_err(|e| Error::Input(e.to_string()))?;
    text.lines()
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Error::Input("report row is not an object".into())),
        })
        .collect()
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

pub const CLASSES: &[&str] = &["entity", "semantic", "structural", "temporal", "policy"];

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

/// Writes the rows in batches of `WRITE_ROWS`, whatever batches they came in: Parquet's
/// page boundaries follow the batches written, and a cluster returns other batch sizes
/// than a local run (the same rows gave other bytes at 100k tasks).
pub fn write_parquet(path: &Path, schema: SchemaRef, batches: &[RecordBatch]) -> Result<()> {
    let mut file = ParquetFile::create(path, schema.clone())?;
    for b in rebatch(&schema, batches)? {
        file.write(&b)?;
    }
    file.finish()?;
    Ok(())
}

/// The same rows in batches of `WRITE_ROWS` (the last one shorter).
pub fn rebatch(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<Vec<RecordBatch>> {
    let mut r = Rebatcher::new(schema.clone());
    let mut out = Vec::new();
    for b in batches {
        out.extend(r.push(b)?);
    }
    out.extend(r.finish()?);
    Ok(out)
}

/// The report as a text table: one row per metric, one column per server and run.
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
    for f in &REPORT_FIELDS[2..] {
        if *f == "failures_by_class" {
            for c in CLASSES {
                let mut line = vec![format!("failures: {c}")];
                for r in &rows {
                    line.push(fmt_value(r.get(*f).and_then(|v| v.get(*c))));
                }
                lines.push(line);
            }
            continue;
        }
        let mut line = vec![f.to_string()];
        for r in &rows {
            line.push(fmt_value(r.get(*f)));
        }
        lines.push(line);
        // The two figures the seed asks for in words, next to what they come from.
        let extra = match *f {
            "correct" => "pass_rate",
            "correct_and_grounded" => "correct_not_grounded",
            _ => continue,
        };
        let mut line = vec![extra.to_string()];
        for r in &rows {
            line.push(fmt_value(r.get(extra)));
        }
        lines.push(line);
    }
    // Tool-call correctness, when some case lists expected calls (docs/tool-calls.md).
    if rows.iter().any(|r| {
        r.get("tool_call_tasks")
            .and_then(Value::as_i64)
            .is_some_and(|n| n > 0)
    }) {
        for f in TOOL_CALL_FIELDS {
            let mut line = vec![f.to_string()];
            for r in &rows {
                line.push(fmt_value(r.get(*f)));
            }
            lines.push(line);
        }
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

pub fn fmt_value(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "-".into(),
        Some(Value::Number(n)) if n.is_f64() => format!("{:.4}", n.as_f64().unwrap_or_default()),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Columns aligned: the first to the left, the rest to the right (numbers).
pub fn align(lines: &[Vec<String>]) -> String {
    align_with(lines, false)
}

/// Columns aligned to the left (text).
pub fn align_left(lines: &[Vec<String>]) -> String {
    align_with(lines, true)
}

fn align_with(lines: &[Vec<String>], left: bool) -> String {
    let cols = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            lines
                .iter()
                .filter_map(|l| l.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in lines {
        out.push_str(&aligned_line(&widths, l, left));
        out.push('\n');
    }
    out
}

/// One line of cells padded to `widths`: the first column to the left, the rest to the
/// right unless `left`.
pub fn aligned_line(widths: &[usize], cells: &[String], left: bool) -> String {
    let cells: Vec<String> = cells
        .iter()
        .zip(widths)
        .enumerate()
        .map(|(c, (s, &w))| {
            if c == 0 || left {
                format!("{s:<w$}")
            } else {
                format!("{s:>w$}")
            }
        })
        .collect();
    cells.join("  ").trim_end().to_string()
}

/// Calls `f` with each row of a query as a JSON object, a batch at a time.
pub async fn for_each_row(
    ctx: &SessionContext,
    sql: &str,
    mut f: impl FnMut(&serde_json::Map<String, Value>),
) -> Result<()> {
    let mut stream = ctx.sql(sql).await?.execute_stream().await?;
    while let Some(b) = stream.next().await {
        for r in rows_as_json(&[b?])? {
            f(&r);
        }
    }
    Ok(())
}

/// How the automatic labels compare with the hand labels, for the tasks that have one,
/// over the context's `labels` table (counted in SQL: a million labels stay on disk).
pub async fn agreement(ctx: &SessionContext) -> Result<String> {
    let labeled = "human_correct IS NOT NULL";
    let mut counts = vec![
        format!("count(*) FILTER (WHERE {labeled}) AS labeled"),
        format!("count(*) FILTER (WHERE {labeled} AND agrees_with_human) AS agree"),
        "count(*) FILTER (WHERE reviewed_by IS NOT NULL) AS reviewed".to_string(),
        "count(*) FILTER (WHERE reviewed_by IS NOT NULL AND ((correct IS DISTINCT FROM auto_correct) \
         OR (grounded IS DISTINCT FROM auto_grounded) \
         OR (failure_class IS DISTINCT FROM auto_failure_class))) AS changed"
            .to_string(),
    ];
    for c in CLASSES {
        counts.push(format!(
            "count(*) FILTER (WHERE {labeled} AND human_failure_class = '{c}') AS hand_{c}"
        ));
        counts.push(format!(
            "count(*) FILTER (WHERE {labeled} AND failure_class = '{c}') AS auto_{c}"
        ));
        counts.push(format!(
            "count(*) FILTER (WHERE {labeled} AND human_failure_class = '{c}' AND failure_class = '{c}') AS both_{c}"
        ));
    }
    let (_, batches) = collect(ctx, &format!("SELECT {} FROM labels", counts.join(", "))).await?;
    let row = rows_as_json(&batches)?
        .into_iter()
        .next()
        .unwrap_or_default();
    let n = |k: &str| row.get(k).and_then(Value::as_i64).unwrap_or(0);
    let mut out = format!(
        "agreement with hand labels: {} of {} hand-labeled tasks agree\n",
        n("agree"),
        n("labeled")
    );
    out.push_str(&format!(
        "human review decisions: {} task(s), {} changed the automatic label\n",
        n("reviewed"),
        n("changed")
    ));
    let mut lines = vec![vec![
        "class".to_string(),
        "hand".into(),
        "auto".into(),
        "both".into(),
    ]];
    for c in CLASSES {
        lines.push(vec![
            format!("  {c}"),
            n(&format!("hand_{c}")).to_string(),
            n(&format!("auto_{c}")).to_string(),
            n(&format!("both_{c}")).to_string(),
        ]);
    }
    out.push_str(&align(&lines));
    let mut differs = ctx
        .sql(&format!(
            "SELECT case_id, server, correct, grounded, failure_class, human_correct, \
             human_grounded, human_failure_class FROM labels \
             WHERE {labeled} AND agrees_with_human IS NOT TRUE {LABELS_ORDER}"
        ))
        .await?
        .execute_stream()
        .await?;
    while let Some(b) = differs.next().await {
        for r in rows_as_json(&[b?])? {
            let s = |k: &str| fmt_value(r.get(k));
            out.push_str(&format!(
                "  differs: {} on {}: auto correct={} grounded={} class={}; hand correct={} grounded={} class={}\n",
                s("case_id"),
                s("server"),
                s("correct"),
                s("grounded"),
                s("failure_class"),
                s("human_correct"),
                s("human_grounded"),
                s("human_failure_class"),
            ));
        }
    }
    Ok(out)
}

/// Number of rows in a set of batches.
pub fn row_count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// Distinct values of a string column.
pub fn distinct_strings(batches: &[RecordBatch], column: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in batches {
        let Ok(i) = b.schema().index_of(column) else {
            continue;
        };
        let Ok(col) = arrow::compute::cast(b.column(i), &DataType::Utf8) else {
            continue;
        };
        let col = col.as_string::<i32>();
        for j in 0..col.len() {
            if col.is_valid(j) {
                let v = col.value(j).to_string();
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out.sort();
    out
}

/// Shown before anything else: seed 000 calls any policy violation a release blocker.
/// Over the context's `labels` table.
pub async fn policy_banner(ctx: &SessionContext) -> Result<String> {
    let (_, batches) = collect(
        ctx,
        "SELECT coalesce(server, '?') AS server, sum(policy_violations) AS violations, \
         sum(calls) AS calls FROM labels GROUP BY 1 HAVING sum(policy_violations) > 0 ORDER BY 1",
    )
    .await?;
    let mut out = String::new();
    for r in rows_as_json(&batches)? {
        let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
        out.push_str(&format!(
            "POLICY VIOLATIONS on {}: {} of {} calls returned rows or columns the user may not see (a release blocker)\n",
            r.get("server").and_then(Value::as_str).unwrap_or("?"),
            n("violations"),
            n("calls")
        ));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// One warning per server and tool that has no lineage while its tasks needed catalog
/// fields (labels' "no lineage for" review reason): without it such a project scores
/// ungrounded and nothing else says why.
pub async fn lineage_warnings(ctx: &SessionContext) -> Result<String> {
    let (_, batches) = collect(
        ctx,
        "SELECT coalesce(server, '?') AS server, reason, count(*) AS tasks FROM          (SELECT server, unnest(review_reasons) AS reason FROM labels) AS r          WHERE starts_with(reason, 'no lineage for ') GROUP BY 1, 2 ORDER BY 1, 2",
    )
    .await?;
    let mut out = String::new();
    for r in rows_as_json(&batches)? {
        out.push_str(&format!(
            "warning: {}: {} ({} task(s) scored ungrounded for it)\n",
            r.get("server").and_then(Value::as_str).unwrap_or("?"),
            r.get("reason").and_then(Value::as_str).unwrap_or("?"),
            r.get("tasks").and_then(Value::as_i64).unwrap_or(0)
        ));
    }
    Ok(out)
}

/// Appends a report to a history folder as `report_history` rows (long form: one per
/// server, run and metric), in a file of its own named by the time.
pub fn append_history(
    dir: &Path,
    report: &[RecordBatch],
    at: chrono::DateTime<chrono::Utc>,
    note: Option<&str>,
) -> Result<std::path::PathBuf> {
    let recorded_at = at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let mut rows = Vec::new();
    for r in rows_as_json(report)? {
        let s = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
        // Tool-call figures only where some case has expected calls, as in the table.
        let tool_calls = r
            .get("tool_call_tasks")
            .and_then(Value::as_i64)
            .is_some_and(|n| n > 0);
        let mut push = |metric: String, v: Option<&Value>| {
            rows.push(serde_json::json!({
                "recorded_at": recorded_at, "server": s("server"), "run_id": s("run_id"),
                "metric": metric, "value": v.and_then(Value::as_f64), "note": note,
            }));
        };
        for (k, v) in &r {
            match (k.as_str(), v) {
                ("server" | "run_id", _) => {}
                (k, _) if !tool_calls && TOOL_CALL_FIELDS.contains(&k) => {}
                (_, Value::Object(inner)) => {
                    for (ik, iv) in inner {
                        push(format!("{k}.{ik}"), Some(iv));
                    }
                }
                _ => push(k.clone(), Some(v)),
            }
        }
    }
    let schema = crate::model::REPORT_HISTORY.schema.clone();
    let mut decoder = arrow::json::ReaderBuilder::new(schema.clone()).build_decoder()?;
    decoder.serialize(&rows)?;
    let batch = decoder
        .flush()?
        .unwrap_or_else(|| RecordBatch::new_empty(schema.clone()));
    let path = dir.join(format!("report-{}.parquet", recorded_at.replace(':', "")));
    write_parquet(&path, schema, &[batch])?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{Field, Schema};

    #[test]
    fn parquet_bytes_do_not_depend_on_the_batches() {
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let n = 20_000;
        let whole = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values(0..n as i64)),
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("row {i}")),
                )),
            ],
        )
        .unwrap();
        let ragged: Vec<RecordBatch> = [(0, 7), (7, 9000), (9007, 3), (9010, n - 9010)]
            .iter()
            .map(|&(o, l)| whole.slice(o, l))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.parquet"), dir.path().join("b.parquet"));
        write_parquet(&a, schema.clone(), &[whole]).unwrap();
        write_parquet(&b, schema, &ragged).unwrap();
        assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    }
}
