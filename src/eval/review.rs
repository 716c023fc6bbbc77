//! The human review loop: `export` writes one line per task that needs review (the
//! question, the gold record, the automatic label with its evidence, the trace, and an
//! empty decision); `decision` reads a line back with its decision checked. The
//! decisions become the `reviews` table, which labels.sql lets win over the automatic
//! label.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::engine::query::{collect, rows_as_json};
use crate::engine::session::Session;
use crate::error::{Error, Result};
use crate::model::FAILURE_CLASSES;

/// Longest tool result kept in a review line, in characters (the rest is cut, with `…`).
const RESULT_CHARS: usize = 2000;

/// The review lines (JSON lines) of the tasks that need review in `labels_file` (a
/// labels.parquet the labeler wrote), with their questions and steps from `session`.
pub async fn export(session: &Session, labels_file: &Path) -> Result<String> {
    let ctx = &session.ctx;
    ctx.register_parquet(
        "labeled",
        labels_file.to_string_lossy().as_ref(),
        Default::default(),
    )
    .await?;
    let (_, labels) = collect(
        ctx,
        "SELECT l.*, t.question, t.gold['answer'] AS gold_answer, t.gold['definition'] AS gold_definition \
         FROM labeled l JOIN tasks t ON t.run_id = l.run_id AND t.server = l.server AND t.case_id = l.case_id \
         WHERE l.needs_human_review ORDER BY l.run_id, l.server, l.case_id",
    )
    .await?;
    let (_, steps) = collect(
        ctx,
        "SELECT s.run_id, s.server, s.case_id, s.trace_id, s.step, s.kind, s.tool, s.arguments, s.result, \
         s.as_of, s.text FROM steps s JOIN labeled l ON l.run_id = s.run_id AND l.server = s.server \
         AND l.case_id = s.case_id WHERE l.needs_human_review \
         ORDER BY s.run_id, s.server, s.case_id, s.trace_id, s.step",
    )
    .await?;
    let key = |r: &Map<String, Value>| {
        ["run_id", "server", "case_id"].map(|k| r.get(k).cloned().unwrap_or(Value::Null))
    };
    // Each task's steps, in order, looked up by task (not searched per task).
    let mut traces: HashMap<[Value; 3], Vec<Value>> = HashMap::new();
    for mut s in rows_as_json(&steps)? {
        let k = key(&s);
        for k in ["run_id", "server", "case_id"] {
            s.remove(k);
        }
        if let Some(Value::String(res)) = s.get_mut("result")
            && res.chars().count() > RESULT_CHARS
        {
            *res = res.chars().take(RESULT_CHARS).collect::<String>() + "…";
        }
        traces.entry(k).or_default().push(Value::Object(s));
    }
    let mut text = String::new();
    for r in &rows_as_json(&labels)? {
        let trace = traces.remove(&key(r)).unwrap_or_default();
        let get = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
        let line = json!({
            "run_id": get("run_id"),
            "server": get("server"),
            "case_id": get("case_id"),
            "question": get("question"),
            "gold_answer": get("gold_answer"),
            "gold_definition": get("gold_definition"),
            "answer": get("answer"),
            "review_reasons": get("review_reasons"),
            "automatic": {"correct": get("correct"), "grounded": get("grounded"), "failure_class": get("failure_class")},
            "failure_evidence": get("failure_evidence"),
            "trace": trace,
            "decision": {"correct": null, "grounded": null, "failure_class": null, "reviewer": null, "note": null},
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    Ok(text)
}

/// One decision from line `n` of a review file, checked: a `reviews` row, or `None` when
/// the line decides nothing. `failure_class` is a seed class, `none` (no class) or null.
pub fn decision(file: &Path, n: usize, line: &str) -> Result<Option<Map<String, Value>>> {
    let at = |field: &str, why: &str| {
        Error::Input(format!("{}:{n}: field `{field}`: {why}", file.display()))
    };
    let v: Value = serde_json::from_str(line)
        .map_err(|e| Error::Input(format!("{}:{n}: malformed JSON: {e}", file.display())))?;
    let mut out = Map::new();
    for k in ["run_id", "server", "case_id"] {
        match v.get(k) {
            Some(Value::String(s)) => {
                out.insert(k.into(), json!(s));
            }
            _ => return Err(at(k, "missing or not a string")),
        }
    }
    let d = v
        .get("decision")
        .and_then(Value::as_object)
        .ok_or_else(|| at("decision", "missing or not an object"))?;
    for k in ["correct", "grounded"] {
        match d.get(k) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => {
                out.insert(k.into(), json!(b));
            }
            Some(_) => return Err(at(&format!("decision.{k}"), "expected true, false or null")),
        }
    }
    match d.get("failure_class") {
        None | Some(Value::Null) => {}
        Some(Value::String(c)) if c == "none" || FAILURE_CLASSES.contains(&c.as_str()) => {
            out.insert("failure_class".into(), json!(c));
        }
        Some(_) => {
            return Err(at(
                "decision.failure_class",
                &format!("expected {}, none or null", FAILURE_CLASSES.join(", ")),
            ));
        }
    }
    if !["correct", "grounded", "failure_class"]
        .iter()
        .any(|k| out.contains_key(*k))
    {
        return Ok(None);
    }
    match d.get("reviewer") {
        Some(Value::String(r)) if !r.trim().is_empty() => {
            out.insert("reviewer".into(), json!(r));
        }
        _ => {
            return Err(at(
                "decision.reviewer",
                "a decision needs the reviewer's name",
            ));
        }
    }
    if let Some(Value::String(note)) = d.get("note") {
        out.insert("note".into(), json!(note));
    }
    let when = match d.get("decided_at") {
        Some(Value::String(t)) => t.clone(),
        _ => chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    out.insert("decided_at".into(), json!(when));
    Ok(Some(out))
}
