//! The regression suite (seed 000: harvest, keep what exposes grounding, rerun on every
//! change): which cases to keep (queries/suite/curation.sql) and which an older context
//! or tool set would score differently (queries/suite/impact.sql).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use object_store::ObjectStoreExt;
use serde_json::{Map, Value};

use crate::engine::query::{collect, rows_as_json};
use crate::engine::session::TableFormat;
use crate::error::{Error, Result};
use crate::output::write_atomic;

/// A row of `suite_curation` or `case_impact`.
pub type Row = Map<String, Value>;

/// `suite curate`'s result, written to `OUT/suite/`.
#[derive(Debug)]
pub struct Curation {
    /// Every case with `keep` and `reasons`, by case_id.
    pub rows: Vec<Row>,
    pub kept: BTreeSet<String>,
    /// `OUT/suite/cases.jsonl`, or None when the cases are not JSONL (the kept ids are
    /// then only in curation.jsonl).
    pub cases: Option<PathBuf>,
}

/// Keeps the cases some configuration fails, passes ungrounded or leaves undecided;
/// writes `out/suite/curation.jsonl` and the kept cases' lines, as given, to
/// `out/suite/cases.jsonl`.
pub async fn curate(session: &crate::Session, out: &Path) -> Result<Curation> {
    let (_, rows) = collect(
        &session.ctx,
        "SELECT * FROM suite_curation ORDER BY case_id",
    )
    .await?;
    let rows = rows_as_json(&rows)?;
    let kept: BTreeSet<String> = rows
        .iter()
        .filter(|r| r.get("keep").and_then(Value::as_bool).unwrap_or(true))
        .map(|r| text(r, "case_id"))
        .collect();
    let dir = out.join("suite");
    write_rows(&dir.join("curation.jsonl"), &rows)?;
    let cases = match case_lines(session, &kept).await? {
        Some(lines) => {
            let path = dir.join("cases.jsonl");
            write_atomic(&path, lines.as_bytes()).map_err(|e| Error::io(path.display(), e))?;
            Some(path)
        }
        None => None,
    };
    Ok(Curation { rows, kept, cases })
}

/// `suite impact`'s result, written to `OUT/suite/`.
#[derive(Debug)]
pub struct Impact {
    /// The touched cases with `reasons`, by case_id.
    pub rows: Vec<Row>,
    /// `OUT/suite/changed_cases.jsonl`, when the cases are JSONL.
    pub cases: Option<PathBuf>,
}

/// The cases the older project at `old` (its catalog, glossary, policies and tool
/// snapshots) would score differently from `session`'s.
pub async fn impacted(session: &mut crate::Session, old: &str) -> Result<Vec<Row>> {
    session.register_old(old).await.map_err(|e| match e {
        Error::Input(m) => Error::Input(format!("cannot read --old {old}: {m}")),
        other => other,
    })?;
    let (_, rows) = collect(&session.ctx, "SELECT * FROM case_impact ORDER BY case_id").await?;
    rows_as_json(&rows)
}

/// `impacted`, written: `out/suite/impact.jsonl` and the touched cases' lines, as given,
/// to `out/suite/changed_cases.jsonl`.
pub async fn impact(session: &mut crate::Session, old: &str, out: &Path) -> Result<Impact> {
    let rows = impacted(session, old).await?;
    let ids: BTreeSet<String> = rows.iter().map(|r| text(r, "case_id")).collect();
    let dir = out.join("suite");
    write_rows(&dir.join("impact.jsonl"), &rows)?;
    let cases = match case_lines(session, &ids).await? {
        Some(lines) => {
            let path = dir.join("changed_cases.jsonl");
            write_atomic(&path, lines.as_bytes()).map_err(|e| Error::io(path.display(), e))?;
            Some(path)
        }
        None => None,
    };
    Ok(Impact { rows, cases })
}

/// The SQL condition that picks these rows' cases (`case_id IN (…)`).
pub fn case_filter(rows: &[Row]) -> String {
    let ids: Vec<String> = rows
        .iter()
        .map(|r| format!("'{}'", text(r, "case_id").replace('\'', "''")))
        .collect();
    format!("case_id IN ({})", ids.join(", "))
}

/// A row's string field, or "".
pub fn text(r: &Row, k: &str) -> String {
    r.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The lines of the cases file(s) whose case_id is in `ids`, unchanged; None when the
/// cases are not JSONL.
async fn case_lines(session: &crate::Session, ids: &BTreeSet<String>) -> Result<Option<String>> {
    let Some(source) = session.sources.iter().find(|s| s.spec.name == "cases") else {
        return Ok(None);
    };
    if source.format != Some(TableFormat::Jsonl) {
        return Ok(None);
    }
    let mut out = String::new();
    for f in &source.files {
        let read = async { source.store.get(&f.meta.location).await?.bytes().await };
        let bytes = read
            .await
            .map_err(|e| Error::Input(format!("cannot read {}: {e}", f.meta.location)))?;
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

fn write_rows(path: &Path, rows: &[Row]) -> Result<()> {
    let text: String = rows
        .iter()
        .map(|r| Value::Object(r.clone()).to_string() + "\n")
        .collect();
    write_atomic(path, text.as_bytes()).map_err(|e| Error::io(path.display(), e))
}
