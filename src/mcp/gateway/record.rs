//! The gateway's records, each line written and flushed as it happens so a crash keeps
//! everything up to that point:
//! - `OUT/gateway/TRACE.steps.jsonl`: `steps` rows (tool_call / tool_result);
//! - `OUT/gateway/TRACE.messages.jsonl`: every JSON-RPC message both ways, in the order
//!   the gateway passed it on (`import mcp-log` reads it);
//! - `OUT/gateway/TRACE.events.jsonl`: drift, refusals, disables, timeouts, upstream exit.
//!
//! On close the steps become `OUT/traces/TRACE.parquet`, ready for `label`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

/// Who and what every step is recorded for.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub run_id: String,
    /// None: the server's own name from its initialize answer.
    pub server: Option<String>,
    pub trace_id: String,
    pub case_id: Option<String>,
    pub as_user: Option<String>,
    pub user_role: Option<String>,
    pub credential_subject: Option<String>,
}

pub struct Recorder {
    pub id: Identity,
    /// The server name once known.
    pub server: Option<String>,
    steps: File,
    messages: File,
    events: File,
    steps_path: PathBuf,
    parquet_path: PathBuf,
    step: u64,
    quiet: bool,
    /// The first write that failed.
    failed: Option<String>,
}

pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// A trace id as a file name.
pub fn file_stem(trace_id: &str) -> String {
    trace_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn create(path: &Path) -> Result<File> {
    File::create(path).map_err(|e| Error::Input(format!("cannot create {}: {e}", path.display())))
}

impl Recorder {
    pub fn open(out: &Path, id: Identity, quiet: bool) -> Result<Recorder> {
        let dir = out.join("gateway");
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::Input(format!("cannot create {}: {e}", dir.display())))?;
        let stem = file_stem(&id.trace_id);
        let steps_path = dir.join(format!("{stem}.steps.jsonl"));
        Ok(Recorder {
            steps: create(&steps_path)?,
            messages: create(&dir.join(format!("{stem}.messages.jsonl")))?,
            events: create(&dir.join(format!("{stem}.events.jsonl")))?,
            steps_path,
            parquet_path: out.join("traces").join(format!("{stem}.parquet")),
            server: id.server.clone(),
            id,
            step: 0,
            quiet,
            failed: None,
        })
    }

    pub fn steps_path(&self) -> &Path {
        &self.steps_path
    }

    /// One write per line on an unbuffered file: a line is either whole or absent. A
    /// failed write is kept, and `finish` fails with it: a record is never dropped quietly.
    fn line(file: &mut File, v: &Value, failed: &mut Option<String>) {
        let mut s = v.to_string();
        s.push('\n');
        if let Err(e) = file.write_all(s.as_bytes()) {
            eprintln!("groundcheck gateway: cannot write a record: {e}");
            failed.get_or_insert_with(|| format!("cannot write a record: {e}"));
        }
    }

    /// A JSON-RPC message the gateway passed on (or answered itself), as the JSON text
    /// that went on the wire: the log keeps the bytes sent, not a re-serialised copy.
    pub fn message(&mut self, direction: &str, text: &str) {
        let line = format!(
            "{{\"direction\":{},\"timestamp\":{},\"message\":{text}}}\n",
            json!(direction),
            json!(now())
        );
        if let Err(e) = self.messages.write_all(line.as_bytes()) {
            eprintln!("groundcheck gateway: cannot write a record: {e}");
            self.failed
                .get_or_insert_with(|| format!("cannot write a record: {e}"));
        }
    }

    /// An event for the log; `warn` also prints it on stderr (the user sees it).
    pub fn event(&mut self, event: &str, mut fields: Value, warn: Option<String>) {
        if let (Some(text), false) = (&warn, self.quiet) {
            eprintln!("groundcheck gateway: {text}");
        }
        fields["event"] = json!(event);
        fields["ts"] = json!(now());
        fields["trace_id"] = json!(self.id.trace_id);
        Self::line(&mut self.events, &fields, &mut self.failed);
    }

    /// A `steps` row; `extra` holds kind-specific fields.
    pub fn step(&mut self, kind: &str, ts: &str, extra: Map<String, Value>) {
        self.step += 1;
        let mut m = Map::new();
        m.insert("run_id".into(), json!(self.id.run_id));
        m.insert(
            "server".into(),
            json!(self.server.as_deref().unwrap_or("unknown")),
        );
        if let Some(c) = &self.id.case_id {
            m.insert("case_id".into(), json!(c));
        }
        m.insert("trace_id".into(), json!(self.id.trace_id));
        m.insert("step".into(), json!(self.step));
        m.insert("ts".into(), json!(ts));
        m.insert("kind".into(), json!(kind));
        for (k, v) in [
            ("as_user", &self.id.as_user),
            ("user_role", &self.id.user_role),
            ("credential_subject", &self.id.credential_subject),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        // arguments and result stay JSON values, as in hand-written traces; `ingest` and
        // `finish` store them as JSON text.
        m.extend(extra);
        Self::line(&mut self.steps, &Value::Object(m), &mut self.failed);
    }

    /// Writes the steps as Parquet (under a temporary name, then renamed).
    pub fn finish(&mut self) -> Result<PathBuf> {
        if let Some(why) = &self.failed {
            return Err(Error::Input(format!(
                "{}: {why}; the records are incomplete",
                self.steps_path.display()
            )));
        }
        let text = std::fs::read_to_string(&self.steps_path)
            .map_err(|e| Error::Input(format!("{}: {e}", self.steps_path.display())))?;
        let rows = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str::<Value>(l).map_err(|e| {
                    Error::Input(format!(
                        "{}:{}: a step the gateway wrote does not read back: {e}",
                        self.steps_path.display(),
                        i + 1
                    ))
                })
            })
            .collect::<Result<Vec<Value>>>()?;
        let batch = crate::input::import::steps_batch(&rows)?;
        let mut f = crate::output::ParquetFile::create(
            &self.parquet_path,
            crate::model::STEPS.schema.clone(),
        )?;
        f.write(&batch)?;
        f.finish()?;
        Ok(self.parquet_path.clone())
    }
}
