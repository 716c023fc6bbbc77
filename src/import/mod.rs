//! Trace importers: OpenTelemetry (OTLP JSON, GenAI and MCP semantic conventions),
//! OpenInference spans (Phoenix), and MCP JSON-RPC logs, mapped into `steps` rows (and,
//! from a logged tools/list, `tool_snapshots` rows). The mapping is documented in
//! docs/importers.md. What a format lacks is left null and counted, never invented.

pub mod mcp_log;
pub mod otlp;

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// OTLP JSON (one export per file, or JSON lines as the file exporter writes), GenAI
    /// and MCP semantic conventions; OpenInference attributes are read too.
    Otlp,
    /// OpenInference spans as Phoenix exports them: JSON lines of flat spans
    /// (`context.trace_id`, `attributes` as a flat object). OTLP files with OpenInference
    /// attributes are read by `otlp`.
    Openinference,
    /// A JSON-lines log of MCP JSON-RPC messages: {"direction", "timestamp", "message"}.
    McpLog,
}

impl Format {
    /// The name on the command line (`otlp`, `openinference`, `mcp-log`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Otlp => "otlp",
            Format::Openinference => "openinference",
            Format::McpLog => "mcp-log",
        }
    }
}

/// One input file.
pub struct Input {
    pub display: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// run_id for every step (the formats have none; default `import`).
    pub run_id: String,
    /// Server name when the trace does not say.
    pub server: Option<String>,
}

/// One step before numbering.
#[derive(Debug, Clone, Default)]
pub struct Step {
    pub trace_id: String,
    pub server: Option<String>,
    pub ts: Option<DateTime<Utc>>,
    /// Order among steps with the same ts (file order).
    pub seq: usize,
    pub kind: &'static str,
    pub case_id: Option<String>,
    pub call_id: Option<String>,
    pub tool: Option<String>,
    pub arguments: Option<Value>,
    pub result: Option<Value>,
    pub is_error: Option<bool>,
    pub as_of: Option<DateTime<Utc>>,
    pub as_user: Option<String>,
    pub model: Option<String>,
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub text: Option<String>,
}

#[derive(Debug, Default)]
pub struct Imported {
    pub steps: Vec<Value>,
    pub snapshots: Vec<Value>,
    /// Records read (spans or messages).
    pub records: usize,
    /// What the input lacked: "as_user on tool calls" -> how many steps.
    pub lacking: BTreeMap<String, usize>,
}

pub fn import(format: Format, files: &[Input], opts: &Options) -> Result<Imported> {
    let mut steps = Vec::new();
    let mut out = Imported::default();
    for f in files {
        match format {
            Format::Otlp => otlp::read(f, false, &mut steps, &mut out)?,
            Format::Openinference => otlp::read(f, true, &mut steps, &mut out)?,
            Format::McpLog => mcp_log::read(f, opts, &mut steps, &mut out)?,
        }
    }
    number(steps, opts, &mut out);
    Ok(out)
}

fn rfc3339(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Orders each trace's steps by time (then input order), numbers them, and makes rows.
fn number(mut steps: Vec<Step>, opts: &Options, out: &mut Imported) {
    steps.sort_by(|a, b| (&a.trace_id, a.ts, a.seq).cmp(&(&b.trace_id, b.ts, b.seq)));
    let run_id = if opts.run_id.is_empty() {
        "import"
    } else {
        &opts.run_id
    };
    let mut n = 0;
    let mut last_trace = String::new();
    let mut lack = |what: &str| *out.lacking.entry(what.to_string()).or_default() += 1;
    for s in steps {
        if s.trace_id != last_trace {
            n = 0;
            last_trace = s.trace_id.clone();
        }
        n += 1;
        let server = s.server.clone().or(opts.server.clone()).unwrap_or_else(|| {
            lack("server (no attribute and no --server): recorded as 'unknown'");
            "unknown".into()
        });
        if s.ts.is_none() {
            lack("ts");
        }
        if s.kind == "tool_call" && s.as_user.is_none() {
            lack("as_user on tool calls");
        }
        if s.kind == "tool_result" && s.as_of.is_none() {
            lack("as_of on tool results");
        }
        let mut m = Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        };
        put("run_id", Some(json!(run_id)));
        put("server", Some(json!(server)));
        put("trace_id", Some(json!(s.trace_id)));
        put("step", Some(json!(n)));
        put("kind", Some(json!(s.kind)));
        put("ts", s.ts.as_ref().map(|t| json!(rfc3339(t))));
        put("case_id", s.case_id.map(Value::from));
        put("call_id", s.call_id.map(Value::from));
        put("tool", s.tool.map(Value::from));
        put(
            "arguments",
            s.arguments.map(|v| Value::String(v.to_string())),
        );
        put("result", s.result.map(|v| Value::String(v.to_string())));
        put("is_error", s.is_error.map(Value::from));
        put("as_of", s.as_of.as_ref().map(|t| json!(rfc3339(t))));
        put("as_user", s.as_user.map(Value::from));
        put("model", s.model.map(Value::from));
        put("input_tokens", s.input_tokens.map(Value::from));
        put("output_tokens", s.output_tokens.map(Value::from));
        put("text", s.text.map(Value::from));
        out.steps.push(Value::Object(m));
    }
}

/// `steps` rows as JSONL holds them (arguments and result as JSON values) made into
/// rows for `steps_batch` (those two as JSON text, as `ingest` stores them).
pub fn json_columns_as_text(rows: Vec<Value>) -> Vec<Value> {
    rows.into_iter()
        .map(|mut r| {
            for k in ["arguments", "result"] {
                if let Some(v) = r.get(k).filter(|v| !v.is_null()).cloned() {
                    r[k] = Value::String(v.to_string());
                }
            }
            r
        })
        .collect()
}

/// The rows as a `steps` batch.
pub fn steps_batch(rows: &[Value]) -> Result<RecordBatch> {
    batch(&crate::model::STEPS.schema, rows)
}

pub fn batch(schema: &arrow::datatypes::SchemaRef, rows: &[Value]) -> Result<RecordBatch> {
    let mut decoder = arrow::json::ReaderBuilder::new(Arc::clone(schema)).build_decoder()?;
    decoder.serialize(rows)?;
    Ok(decoder
        .flush()?
        .unwrap_or_else(|| RecordBatch::new_empty(Arc::clone(schema))))
}

/// A JSON text attribute as a value: parsed when it is JSON, else kept as a string.
pub fn json_or_text(v: &Value) -> Value {
    match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| v.clone()),
        other => other.clone(),
    }
}

pub fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    match v {
        Value::String(s) => DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .ok()
            .or_else(|| s.parse::<i64>().ok().map(DateTime::from_timestamp_nanos)),
        Value::Number(n) => n.as_i64().map(DateTime::from_timestamp_nanos),
        _ => None,
    }
}

/// serde_json's reason without its own " at line L column C" (callers name the place),
/// marked when the text ended early.
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let why = text.split(" at line ").next().unwrap_or_default();
    if e.is_eof() {
        format!("{why} (truncated?)")
    } else {
        why.to_string()
    }
}

pub(crate) fn bad(file: &str, line: usize, col: usize, why: impl std::fmt::Display) -> Error {
    Error::Input(format!("{file}:{line}:{col}: {why}"))
}

/// JSON documents of a file: one document, or JSON lines. A document that does not parse
/// is an error naming its line and column (a truncated file included).
pub(crate) fn documents(f: &Input) -> Result<Vec<(usize, Value)>> {
    let text = std::str::from_utf8(&f.bytes).map_err(|e| {
        Error::Input(format!(
            "{}: not UTF-8 (byte {})",
            f.display,
            e.valid_up_to()
        ))
    })?;
    let whole = match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(vec![(1, v)]),
        Err(e) => e,
    };
    // JSON lines when the first line is a document of its own; else one broken document.
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if serde_json::from_str::<Value>(first).is_err() {
        return Err(bad(
            &f.display,
            whole.line(),
            whole.column(),
            json_error(&whole),
        ));
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str::<Value>(line)
            .map_err(|e| bad(&f.display, i + 1, e.column(), json_error(&e)))?;
        out.push((i + 1, v));
    }
    Ok(out)
}
