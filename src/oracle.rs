//! The external policy oracle: the source system's own permission check, run as a
//! subprocess that speaks JSON lines (seed 000: "you point it at the source system's
//! permission check").
//!
//! For each call with a result we write one request line and read one answer line:
//! ```text
//! > {"call": {"run_id", "server", "trace_id", "call_id"}, "tool", "as_user", "role",
//!    "scope", "columns": [...], "rows": [{...}, ...]}
//! < {"allowed_rows": [0, 2], "allowed_columns": ["deal_id", "sales_region"]}
//! ```
//! Rows and columns not allowed are violations of that call. An oracle that exits, does
//! not answer in time or answers something else makes the call unsure: it goes to human
//! review with the reason, and is never counted as allowed. Results land in the
//! `external_policy` table, which `queries/metrics/policy.sql` adds to the built-in check.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{ArrayRef, ListBuilder, RecordBatch, StringArray, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::error::{Error, Result};
use crate::scoring::{collect, rows_as_json};

pub const TABLE: &str = "external_policy";

pub fn schema() -> SchemaRef {
    let list = || DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    Arc::new(Schema::new(vec![
        Field::new("run_id", DataType::Utf8, true),
        Field::new("server", DataType::Utf8, true),
        Field::new("trace_id", DataType::Utf8, true),
        Field::new("call_id", DataType::Utf8, true),
        Field::new("violations", list(), true),
        Field::new("unsure", list(), true),
    ]))
}

/// Registers the (empty) table the oracle's findings go into. On a cluster it is a table
/// of no files: the oracle runs locally and its in-memory findings cannot be shipped.
pub fn register(ctx: &SessionContext, on_cluster: bool) -> Result<()> {
    if on_cluster {
        ctx.register_table(TABLE, crate::session::empty_table(TABLE, schema())?)?;
    } else {
        ctx.register_table(TABLE, Arc::new(MemTable::try_new(schema(), vec![vec![]])?))?;
    }
    Ok(())
}

struct Finding {
    key: [String; 4],
    violations: Vec<String>,
    unsure: Vec<String>,
}

/// Asks the oracle `command` (run with `sh -c 'exec CMD'`) about every call with a result; returns how
/// many calls it checked.
pub async fn run(ctx: &SessionContext, command: &str, timeout: Duration) -> Result<usize> {
    let (_, batches) = collect(
        ctx,
        "SELECT k.run_id, k.server, k.trace_id, k.call_id, k.tool, k.result, t.as_user, t.user_role, t.gold['policy_scope'] AS scope \
         FROM calls k JOIN tasks t ON t.run_id = k.run_id AND t.server = k.server AND t.case_id = k.case_id \
         WHERE k.result IS NOT NULL ORDER BY k.run_id, k.server, k.trace_id, k.step",
    )
    .await?;
    let calls = rows_as_json(&batches)?;
    // `exec`, so that killing the child kills the oracle itself, not just its shell.
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec {command}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Error::Input(format!("cannot start the policy oracle `{command}`: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut findings = Vec::new();
    let mut broken: Option<String> = None;
    for c in &calls {
        let s = |k: &str| {
            c.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let key = [s("run_id"), s("server"), s("trace_id"), s("call_id")];
        let name = format!("{}/{}/{}/{}", key[0], key[1], key[2], key[3]);
        if let Some(why) = &broken {
            findings.push(Finding {
                key,
                violations: vec![],
                unsure: vec![why.clone()],
            });
            continue;
        }
        let result: Value = serde_json::from_str(&s("result")).unwrap_or(Value::Null);
        let rows = groundcheck_udfs::policy_violations::rows(&result);
        let mut columns: Vec<String> = rows.iter().flat_map(|r| r.keys().cloned()).collect();
        columns.sort();
        columns.dedup();
        let request = json!({
            "call": {"run_id": key[0], "server": key[1], "trace_id": key[2], "call_id": key[3]},
            "tool": s("tool"), "as_user": s("as_user"), "role": s("user_role"), "scope": c.get("scope"),
            "columns": columns, "rows": rows,
        });
        let sent = stdin.write_all(format!("{request}\n").as_bytes()).await;
        let answer = match sent {
            Err(e) => Err(format!("policy oracle stopped reading (call {name}): {e}")),
            Ok(()) => match tokio::time::timeout(timeout, lines.next_line()).await {
                Err(_) => Err(format!(
                    "policy oracle did not answer within {}s (call {name})",
                    timeout.as_secs_f64()
                )),
                Ok(Err(e)) => Err(format!(
                    "policy oracle output unreadable (call {name}): {e}"
                )),
                Ok(Ok(None)) => Err(format!(
                    "policy oracle exited before answering (call {name})"
                )),
                Ok(Ok(Some(line))) => Ok(line),
            },
        };
        match answer {
            Err(why) => {
                eprintln!("warning: {why}; this call and the rest go to human review");
                broken = Some(why.clone());
                findings.push(Finding {
                    key,
                    violations: vec![],
                    unsure: vec![why],
                });
            }
            Ok(line) => findings.push(judge(key, &name, &line, rows.len(), &columns)),
        }
    }
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
    let _ = child.start_kill();
    store(ctx, &findings).await?;
    Ok(calls.len())
}

/// Turns one answer line into violations (or an unsure reason, if it is not an answer).
fn judge(key: [String; 4], name: &str, line: &str, rows: usize, columns: &[String]) -> Finding {
    let malformed = |why: String| Finding {
        key: key.clone(),
        violations: vec![],
        unsure: vec![format!("policy oracle answered {why} (call {name})")],
    };
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        return malformed(format!("a line that is not JSON: {line}"));
    };
    let (Some(allowed_rows), Some(allowed_cols)) = (
        v.get("allowed_rows").and_then(Value::as_array),
        v.get("allowed_columns").and_then(Value::as_array),
    ) else {
        return malformed(format!("without allowed_rows and allowed_columns: {line}"));
    };
    let allowed_rows: Vec<u64> = allowed_rows.iter().filter_map(Value::as_u64).collect();
    let allowed_cols: Vec<&str> = allowed_cols.iter().filter_map(Value::as_str).collect();
    let mut violations = Vec::new();
    let outside = (0..rows as u64)
        .filter(|i| !allowed_rows.contains(i))
        .count();
    if outside > 0 {
        violations.push(format!(
            "{outside} of {rows} rows not allowed by the policy oracle"
        ));
    }
    for c in columns {
        if !allowed_cols.contains(&c.as_str()) {
            violations.push(format!("column {c} not allowed by the policy oracle"));
        }
    }
    Finding {
        key,
        violations,
        unsure: vec![],
    }
}

async fn store(ctx: &SessionContext, findings: &[Finding]) -> Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    let col = |i: usize| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            findings.iter().map(|f| f.key[i].clone()),
        ))
    };
    let list = |pick: fn(&Finding) -> &Vec<String>| -> ArrayRef {
        let mut b = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
            "item",
            DataType::Utf8,
            true,
        )));
        for f in findings {
            for s in pick(f) {
                b.values().append_value(s);
            }
            b.append(true);
        }
        Arc::new(b.finish())
    };
    let batch = RecordBatch::try_new(
        schema(),
        vec![
            col(0),
            col(1),
            col(2),
            col(3),
            list(|f| &f.violations),
            list(|f| &f.unsure),
        ],
    )?;
    ctx.read_batch(batch)?
        .write_table(TABLE, DataFrameWriteOptions::new())
        .await?;
    Ok(())
}
