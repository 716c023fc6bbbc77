//! The rejects sink: every line refused under `--on-bad-line skip`, with its reason.
//!
//! A table may be scanned more than once in one command (a query that reads `cases`
//! twice), so rejects are keyed by (file, line) and each is kept once. The file is written
//! in file and line order, so the same input gives the same bytes.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::{Map, Value, json};

use crate::output::write_atomic;

/// The line as it was in the input.
#[derive(Debug, Clone)]
pub enum RawLine {
    /// Valid UTF-8: kept unchanged, as a JSON string.
    Text(String),
    /// Not UTF-8: kept unchanged, base64-encoded.
    Bytes(Vec<u8>),
    /// Too long to keep: its first bytes, and where the whole line is in the file.
    Truncated {
        prefix: Vec<u8>,
        byte_offset: u64,
        bytes: u64,
    },
    /// Not copied: the file resolves outside the folder it was listed from (a symlink
    /// out of the project); the rejects file names it instead.
    Withheld(String),
}

#[derive(Debug, Clone)]
pub struct Reject {
    pub table: String,
    pub file: String,
    pub line: u64,
    pub field: Option<String>,
    pub reason: String,
    pub raw: RawLine,
}

#[derive(Debug, Clone, Default)]
pub struct Rejects {
    inner: Arc<Mutex<BTreeMap<(String, u64), Reject>>>,
}

impl Rejects {
    pub fn add(&self, r: Reject) {
        let mut map = self.inner.lock().expect("rejects lock");
        map.entry((r.file.clone(), r.line)).or_insert(r);
    }

    pub fn len(&self) -> usize {
        self.inner.lock().expect("rejects lock").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn all(&self) -> Vec<Reject> {
        self.inner
            .lock()
            .expect("rejects lock")
            .values()
            .cloned()
            .collect()
    }

    /// Writes `rejects.jsonl` into `dir` (write, then rename). Returns the path written, or
    /// `None` when there was nothing to write; then, with `replace` (a verb whose outputs
    /// in `dir` are a set: label, report, ingest), a `rejects.jsonl` an earlier run left
    /// there is removed, so the folder speaks of this run only.
    pub fn write(&self, dir: &Path, replace: bool) -> std::io::Result<Option<std::path::PathBuf>> {
        let all = self.all();
        let path = dir.join("rejects.jsonl");
        if all.is_empty() {
            if !replace {
                return Ok(None);
            }
            crate::output::set::remove(&path)?;
            return Ok(None);
        }
        let mut text = String::new();
        for r in &all {
            text.push_str(&to_json(r).to_string());
            text.push('\n');
        }
        write_atomic(&path, text.as_bytes())?;
        Ok(Some(path))
    }
}

fn to_json(r: &Reject) -> Value {
    let mut m = Map::new();
    m.insert("table".into(), json!(r.table));
    m.insert("file".into(), json!(r.file));
    m.insert("line".into(), json!(r.line));
    m.insert("field".into(), json!(r.field));
    m.insert("reason".into(), json!(r.reason));
    let b64 = base64::engine::general_purpose::STANDARD;
    match &r.raw {
        RawLine::Text(t) => {
            m.insert("raw".into(), json!(t));
        }
        RawLine::Bytes(b) => {
            m.insert("raw_base64".into(), json!(b64.encode(b)));
        }
        RawLine::Truncated {
            prefix,
            byte_offset,
            bytes,
        } => {
            m.insert("raw_prefix_base64".into(), json!(b64.encode(prefix)));
            m.insert("byte_offset".into(), json!(byte_offset));
            m.insert("bytes".into(), json!(bytes));
        }
        RawLine::Withheld(why) => {
            m.insert("raw_withheld".into(), json!(why));
        }
    }
    Value::Object(m)
}
