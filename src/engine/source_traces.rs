//! The cases' `source_trace` -> case_id map, which ties imported traces to their cases.

use std::collections::HashMap;

use serde_json::Value;

use crate::engine::query::{collect, rows_as_json};
use crate::engine::session::Session;
use crate::error::{Error, Result};

/// The cases at `path` (a file, folder, glob or s3:// URL, as `--table cases=` takes) as
/// `source_trace` -> case_id, for tying imported traces to cases. Two cases naming one
/// source trace are an error: the trace cannot answer both.
pub async fn cases_by_trace(path: &str) -> Result<HashMap<String, String>> {
    let session = Session::open_table(&crate::model::CASES, path).await?;
    case_map(&session.ctx, path).await
}

/// `source_trace` -> case_id of the `cases` table of a session (`what` names it in errors).
pub async fn case_map(
    ctx: &datafusion::prelude::SessionContext,
    what: &str,
) -> Result<HashMap<String, String>> {
    let path = what;
    let (_, batches) = collect(
        ctx,
        "SELECT source_trace, case_id FROM cases WHERE source_trace IS NOT NULL ORDER BY case_id",
    )
    .await?;
    let mut map: HashMap<String, String> = HashMap::new();
    for row in rows_as_json(&batches)? {
        let (Some(t), Some(c)) = (
            row.get("source_trace").and_then(Value::as_str),
            row.get("case_id").and_then(Value::as_str),
        ) else {
            continue;
        };
        if let Some(other) = map.insert(t.to_string(), c.to_string())
            && other != c
        {
            return Err(Error::Input(format!(
                "{path}: cases {other} and {c} both name source_trace {t}: a trace answers one case"
            )));
        }
    }
    Ok(map)
}
