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
//! Each answer is stored as it came, in the `external_policy` table; what it means is
//! SQL (`queries/metrics/oracle.sql`): rows and columns not allowed are violations of
//! that call, and an answer that is not one makes the call unsure. An oracle that exits
//! or does not answer in time leaves the call (and those after it) without an answer,
//! with the reason: they go to human review, never counted as allowed.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{ArrayRef, Int64Array, ListBuilder, RecordBatch, StringArray, StringBuilder};
use arrow::datatypes::{DataType, Field};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::SessionContext;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::engine::query::{collect, rows_as_json};
use crate::error::{Error, Result};
use crate::input::child::Env;
use crate::model::{EXTERNAL_POLICY, external_policy_schema};

/// One call asked about: what was sent, and the answer line or why none came.
struct Asked {
    key: [String; 4],
    rows: i64,
    columns: Vec<String>,
    answer: Result<String, String>,
}

/// The calls the oracle is asked about, with what it is told of each.
const ASKED: &str = "SELECT k.run_id, k.server, k.trace_id, k.call_id, k.tool, k.result, t.as_user, t.user_role, t.gold['policy_scope'] AS scope \
     FROM calls k JOIN tasks t ON t.run_id = k.run_id AND t.server = k.server AND t.case_id = k.case_id \
     WHERE k.result IS NOT NULL ORDER BY k.run_id, k.server, k.trace_id, k.step";

/// The views `ASKED` reads: labeling in chunks asks the oracle once they are filled.
pub const READS: [&str; 2] = ["calls", "tasks"];

/// Asks the oracle `command` (run with `sh -c 'exec CMD'`) about every call with a result; returns how
/// many calls it checked.
pub async fn run(ctx: &SessionContext, command: &str, timeout: Duration) -> Result<usize> {
    let (_, batches) = collect(ctx, ASKED).await?;
    let calls = rows_as_json(&batches)?;
    let mut child = crate::input::child::command(command, Env::Inherited)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Error::Config(format!("cannot start the policy oracle `{command}`: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut asked = Vec::new();
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
        let result: Value = serde_json::from_str(&s("result")).unwrap_or(Value::Null);
        let rows = groundcheck_udfs::policy_violations::rows(&result);
        let mut columns: Vec<String> = rows.iter().flat_map(|r| r.keys().cloned()).collect();
        columns.sort();
        columns.dedup();
        let answer = match &broken {
            Some(why) => Err(why.clone()),
            None => {
                let request = json!({
                    "call": {"run_id": key[0], "server": key[1], "trace_id": key[2], "call_id": key[3]},
                    "tool": s("tool"), "as_user": s("as_user"), "role": s("user_role"), "scope": c.get("scope"),
                    "columns": columns, "rows": rows,
                });
                let sent = stdin.write_all(format!("{request}\n").as_bytes()).await;
                match sent {
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
                }
            }
        };
        if let (Err(why), None) = (&answer, &broken) {
            eprintln!("warning: {why}; this call and the rest go to human review");
            broken = Some(why.clone());
        }
        asked.push(Asked {
            key,
            rows: rows.len() as i64,
            columns,
            answer,
        });
    }
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
    let _ = child.start_kill();
    store(ctx, &asked).await?;
    Ok(calls.len())
}

async fn store(ctx: &SessionContext, asked: &[Asked]) -> Result<()> {
    if asked.is_empty() {
        return Ok(());
    }
    let col = |i: usize| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            asked.iter().map(|a| a.key[i].clone()),
        ))
    };
    let mut columns = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        true,
    )));
    for a in asked {
        for c in &a.columns {
            columns.values().append_value(c);
        }
        columns.append(true);
    }
    let batch = RecordBatch::try_new(
        external_policy_schema(),
        vec![
            col(0),
            col(1),
            col(2),
            col(3),
            Arc::new(Int64Array::from_iter_values(asked.iter().map(|a| a.rows))),
            Arc::new(columns.finish()),
            Arc::new(StringArray::from_iter(
                asked.iter().map(|a| a.answer.as_ref().ok()),
            )),
            Arc::new(StringArray::from_iter(
                asked.iter().map(|a| a.answer.as_ref().err()),
            )),
        ],
    )?;
    ctx.read_batch(batch)?
        .write_table(EXTERNAL_POLICY, DataFrameWriteOptions::new())
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labeling in chunks asks the oracle once `READS` are filled: each view kept in
    /// memory that its query names must be among them.
    #[test]
    fn the_oracle_waits_for_every_view_it_reads() {
        let words: Vec<&str> = ASKED
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        for m in crate::eval::chunks::MATERIALIZED {
            assert_eq!(words.contains(m), READS.contains(m), "{m}");
        }
    }
}
