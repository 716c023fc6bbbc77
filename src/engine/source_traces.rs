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

/// The import options for traces tied to cases: `run_id` on every step, `server` where a
/// trace names none, the cases at `cases` (by source_trace), `case_from` span attributes.
pub async fn import_options(
    run_id: &str,
    server: Option<String>,
    cases: Option<&str>,
    case_from: Vec<String>,
) -> Result<crate::input::import::Options> {
    let mut o = crate::input::import::Options {
        run_id: run_id.to_string(),
        server,
        case_from,
        ..Default::default()
    };
    if let Some(path) = cases {
        o.cases_by_trace = cases_by_trace(path).await.map_err(|e| match e {
            Error::Input(m) => Error::Input(format!("cannot read the cases at {path}: {m}")),
            other => other,
        })?;
    }
    Ok(o)
}

/// `--traces-from`: the traces in `format` at `paths`, tied to the cases of the project
/// `opts` opens (by source_trace), as the `steps` table (`server` where a trace names
/// none). Returns the steps and what to tell the user on stderr, a line each.
pub async fn steps_from(
    opts: crate::SessionOptions,
    format: crate::input::import::TraceFormat,
    paths: &[std::path::PathBuf],
    server: Option<String>,
) -> Result<(arrow::array::RecordBatch, Vec<String>)> {
    use crate::input::import;
    let data = opts.data.clone();
    let plain = Session::open_tables(opts).await.map_err(|e| match e {
        Error::Input(m) => Error::Input(format!("cannot open {data}: {m}")),
        other => other,
    })?;
    let cases = case_map(&plain.ctx, &data).await?;
    let files = import::read_files(paths)?;
    let opts = import::Options {
        cases_by_trace: cases,
        server,
        ..Default::default()
    };
    let imported = import::traces(format, &files, &opts, true)?;
    let mut lines: Vec<String> = imported
        .summary(format)
        .into_iter()
        .map(|l| format!("--traces-from: {l}"))
        .collect();
    for (what, n) in &imported.lacking {
        lines.push(format!("note: --traces-from lacks {what}: {n}"));
    }
    Ok((import::steps_batch(&imported.steps)?, lines))
}
