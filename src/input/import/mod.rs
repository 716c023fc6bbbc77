//! Trace importers: OpenTelemetry (OTLP protobuf and JSON; GenAI, MCP, OpenInference and
//! OpenLLMetry conventions), Arize Phoenix's span exports, and MCP JSON-RPC logs, mapped
//! into `steps` rows (and BFCL's question, possible-answer and result files into cases
//! and steps: bfcl.rs) (and, from a logged tools/list, `tool_snapshots` rows). Spans are
//! decoded by format (`otlp`, `phoenix`) and made into steps in one place (`spans`). The
//! mapping is documented in docs/importers.md. What a format lacks is left null and
//! counted, never invented.

pub mod bfcl;
pub mod collect;
pub mod grpc;
pub mod mcp_log;
pub mod mcp_result;
pub mod mlflow;
pub mod open;
pub mod otlp;
pub mod phoenix;
pub mod receiver;
pub mod spans;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::RecordBatch;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::output::ParquetFile;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum TraceFormat {
    /// OpenTelemetry traces: OTLP protobuf (one ExportTraceServiceRequest, or the
    /// Collector file exporter's length-prefixed stream) or OTLP JSON (one export, or JSON
    /// lines), gzip or not; GenAI, MCP, OpenInference and OpenLLMetry attributes.
    Otlp,
    /// Arize Phoenix span exports: `get_spans()` lines or arrays, the REST page
    /// `{"data": [...], "next_cursor"}` (also of `spans/otlpv1`), the spans dataframe as
    /// JSON records or a saved trace dataset (Parquet). OTLP exports in the file are read
    /// as `otlp` reads them.
    #[cfg_attr(feature = "cli", value(alias = "openinference"))]
    Phoenix,
    /// MLflow's trace export: `Trace.to_json()`, `mlflow traces get`, a trace a line or a
    /// JSON array of them (`{"info", "data": {"spans"}}`).
    Mlflow,
    /// A JSON-lines log of MCP JSON-RPC messages: {"direction", "timestamp", "message"}.
    McpLog,
    /// The Berkeley Function Calling Leaderboard's question, possible-answer and model
    /// result files (JSON lines, as bfcl-eval ships and writes them): cases with expected
    /// calls (OUT/cases.jsonl) and the model's calls as steps (--server names the model).
    Bfcl,
}

impl TraceFormat {
    /// The name on the command line (`otlp`, `openinference`, `mcp-log`).
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Otlp => "otlp",
            TraceFormat::Phoenix => "phoenix",
            TraceFormat::Mlflow => "mlflow",
            TraceFormat::McpLog => "mcp-log",
            TraceFormat::Bfcl => "bfcl",
        }
    }
}

/// One input file.
pub struct TraceFile {
    pub display: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// run_id for every step (the formats have none; default `import`).
    pub run_id: String,
    /// Server name when the trace does not say.
    pub server: Option<String>,
    /// Span attributes that name a trace's case, tried before `groundcheck.case_id`.
    pub case_from: Vec<String>,
    /// A case's `source_trace` -> its case_id: a trace (or conversation) id equal to a
    /// case's source_trace is that case.
    pub cases_by_trace: HashMap<String, String>,
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
    /// The span it was read from (hex).
    pub span_id: Option<String>,
}

#[derive(Debug, Default)]
pub struct Imported {
    pub steps: Vec<Value>,
    pub snapshots: Vec<Value>,
    /// Records read (spans or messages).
    pub records: usize,
    /// What the input lacked: "as_user on tool calls" -> how many steps.
    pub lacking: BTreeMap<String, usize>,
    /// How spans were used (span formats).
    pub counts: spans::Counts,
    /// Spans (or messages) per input file, in the order given.
    pub per_input: Vec<(String, usize)>,
    /// Steps already written out, and their traces (a streaming import).
    pub written: Written,
    /// How a streaming import released what it held.
    pub released: open::Released,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Written {
    pub steps: usize,
    pub traces: usize,
    pub cased: usize,
}

impl Imported {
    /// Traces (conversations) among the steps, and how many of them carry a case.
    pub fn traces(&self) -> (usize, usize) {
        let mut all = std::collections::BTreeSet::new();
        let mut cased = std::collections::BTreeSet::new();
        for s in &self.steps {
            let t = s
                .get("trace_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            all.insert(t);
            if s.get("case_id").is_some_and(|c| !c.is_null()) {
                cased.insert(t);
            }
        }
        (
            all.len() + self.written.traces,
            cased.len() + self.written.cased,
        )
    }

    /// Steps made, written out or not.
    pub fn step_count(&self) -> usize {
        self.steps.len() + self.written.steps
    }

    /// One line per input and one for the whole: what was read, merged and skipped.
    pub fn summary(&self, format: TraceFormat) -> Vec<String> {
        let mut lines: Vec<String> = self
            .per_input
            .iter()
            .map(|(f, n)| {
                let what = if format == TraceFormat::McpLog {
                    "message"
                } else {
                    "span"
                };
                format!("{f}: {n} {what}(s)")
            })
            .collect();
        let (traces, cased) = self.traces();
        let c = &self.counts;
        if format != TraceFormat::McpLog {
            let skipped: usize = c.skipped.values().sum();
            let answered = if c.answer_tools > 0 {
                format!(" ({} of them the agent's answer)", c.answer_tools)
            } else {
                String::new()
            };
            let mut line = format!(
                "{} span(s): {} tool span(s) merged into {} call(s){answered}, {} model call(s), {} skipped",
                c.spans, c.tool_spans, c.calls, c.model_spans, skipped
            );
            if skipped > 0 {
                let mut top: Vec<(&String, &usize)> = c.skipped.iter().collect();
                top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                let names: Vec<String> = top
                    .iter()
                    .take(6)
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect();
                line.push_str(&format!(" ({})", names.join(", ")));
            }
            lines.push(line);
        }
        lines.push(format!(
            "{} step(s) in {traces} trace(s), {cased} of them tied to a case",
            self.step_count()
        ));
        let r = &self.released;
        if r.early > 0 {
            lines.push(format!(
                "held spans passed the memory bound: written in {} part(s){}",
                r.early + 1,
                if r.cut > 0 {
                    format!(
                        "; {} conversation(s) written before they looked finished (raise --memory)",
                        r.cut
                    )
                } else {
                    String::new()
                }
            ));
        }
        if r.late > 0 {
            lines.push(format!(
                "warning: {} span(s) of {} trace(s) came after their conversation was written \
                 (raise --memory, or keep a trace's spans together in the input): not in the \
                 steps; the input still has them",
                r.late, r.late_traces
            ));
        }
        lines
    }

    /// Nothing silent: an input that gave no steps is an error that says what it saw.
    pub fn check_not_empty(&self, format: TraceFormat, inputs: &[&str]) -> Result<()> {
        if self.step_count() > 0 {
            return Ok(());
        }
        let seen = if self.records == 0 {
            "no records at all".to_string()
        } else if format == TraceFormat::McpLog {
            format!(
                "{} message(s) but no tools/call, answer or prompt",
                self.records
            )
        } else {
            let mut keys: Vec<(&String, &usize)> = self.counts.keys.iter().collect();
            keys.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let keys: Vec<&str> = keys.iter().take(12).map(|(k, _)| k.as_str()).collect();
            let mut names: Vec<(&String, &usize)> = self.counts.skipped.iter().collect();
            names.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let names: Vec<&str> = names.iter().take(8).map(|(k, _)| k.as_str()).collect();
            format!(
                "{} span(s), none a tool or model call (span names: {}; attribute keys: {})",
                self.records,
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                },
                if keys.is_empty() {
                    "none".into()
                } else {
                    keys.join(", ")
                }
            )
        };
        Err(Error::Input(format!(
            "{}: no steps: {seen}. Expected tool spans (gen_ai.operation.name=execute_tool, \
             mcp.method.name=tools/call, openinference.span.kind=TOOL or traceloop.span.kind=tool) \
             or model spans (gen_ai.operation.name=chat, openinference.span.kind=LLM); see docs/importers.md",
            inputs.join(", ")
        )))
    }
}

/// The files at `paths`, read whole (an importer reads all of a trace's spans together).
pub fn read_files(paths: &[std::path::PathBuf]) -> Result<Vec<TraceFile>> {
    paths
        .iter()
        .map(|p| {
            Ok(TraceFile {
                display: p.display().to_string(),
                bytes: std::fs::read(p).map_err(|e| Error::io(p.display(), e))?,
            })
        })
        .collect()
}

/// Imports `files` with the cases in `opts` to tie them to. An input that gives no steps,
/// or cases that no trace matches (unless `allow_unmatched`), is an input error that
/// says what was seen.
pub fn traces(
    format: TraceFormat,
    files: &[TraceFile],
    opts: &Options,
    allow_unmatched: bool,
) -> Result<Imported> {
    let imported = import(format, files, opts)?;
    let names: Vec<&str> = files.iter().map(|f| f.display.as_str()).collect();
    imported.check(format, &names, opts, allow_unmatched)?;
    Ok(imported)
}

impl Imported {
    /// The checks every import passes before anything is published: some steps, and
    /// (when cases were given, unless `allow_unmatched`) some trace tied to a case.
    pub fn check(
        &self,
        format: TraceFormat,
        inputs: &[&str],
        opts: &Options,
        allow_unmatched: bool,
    ) -> Result<()> {
        self.check_not_empty(format, inputs)?;
        let (traces, cased) = self.traces();
        let asked = !opts.cases_by_trace.is_empty() || !opts.case_from.is_empty();
        if cased == 0 && !allow_unmatched && asked {
            return Err(Error::Input(format!(
                "none of the {traces} trace(s) matched a case: no trace or conversation id equals a \
                 case's source_trace ({} case(s) name one), and no span carries {}; \
                 --allow-unmatched writes them anyway",
                opts.cases_by_trace.len(),
                opts.case_from
                    .iter()
                    .map(String::as_str)
                    .chain(["groundcheck.case_id"])
                    .collect::<Vec<_>>()
                    .join(" or ")
            )));
        }
        Ok(())
    }

    /// The line on traces tied to no case, if any.
    fn unmatched(&self) -> Option<String> {
        let (traces, cased) = self.traces();
        (cased < traces).then(|| {
            format!(
                "note: {} trace(s) matched no case (label and report score only traces tied to a \
                 case: give --cases with their source_trace, or set groundcheck.case_id on a span)",
                traces - cased
            )
        })
    }

    /// A line per thing the input lacked.
    fn lacking_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.lacking
            .iter()
            .map(|(what, n)| format!("lacking: {what}: {n}"))
    }

    /// Writes the steps made so far to `file` (opened at `path` with the first of them)
    /// and forgets them, keeping their counts.
    fn write_out(&mut self, file: &mut Option<ParquetFile>, path: &std::path::Path) -> Result<()> {
        if self.steps.is_empty() {
            return Ok(());
        }
        let before = std::mem::take(&mut self.written);
        let (traces, cased) = self.traces();
        for rows in self.steps.chunks(crate::output::WRITE_ROWS) {
            let b = steps_batch(rows)?;
            let f = match file {
                Some(f) => f,
                None => file.insert(ParquetFile::create(path, b.schema())?),
            };
            f.write(&b)?;
        }
        self.written = Written {
            steps: before.steps + self.steps.len(),
            traces: before.traces + traces,
            cased: before.cased + cased,
        };
        self.steps.clear();
        Ok(())
    }
}

/// How much a streaming import may hold: about `memory` bytes of spans; `idle` on the
/// input's own clock finishes a conversation whose root span was not seen.
#[derive(Debug, Clone, Copy)]
pub struct Hold {
    pub memory: usize,
    pub idle: chrono::Duration,
}

/// `import` of span formats (read a message or JSON line at a time; a single document, a
/// protobuf message or Phoenix's Parquet dataset whole): spans held per conversation
/// within `hold`, made into steps and written to OUT/traces/FORMAT.parquet as released,
/// published only when the checks of `traces` pass (else nothing is). Returns what to tell the user, a line each.
pub fn stream(
    format: TraceFormat,
    paths: &[std::path::PathBuf],
    opts: &Options,
    allow_unmatched: bool,
    hold: Hold,
    out: &std::path::Path,
) -> Result<Vec<String>> {
    // Folders this call makes are taken away again when it fails: nothing half-written.
    let made: Vec<std::path::PathBuf> = [out.to_path_buf(), out.join("traces")]
        .into_iter()
        .filter(|d| !d.exists())
        .collect();
    let done = stream_into(format, paths, opts, allow_unmatched, hold, out);
    if done.is_err() {
        for d in made.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
    done
}

fn stream_into(
    format: TraceFormat,
    paths: &[std::path::PathBuf],
    opts: &Options,
    allow_unmatched: bool,
    hold: Hold,
    out: &std::path::Path,
) -> Result<Vec<String>> {
    let path = out
        .join("traces")
        .join(format!("{}.parquet", format.name()));
    let mut imported = Imported::default();
    let mut held = open::OpenTraces::new(hold.memory, hold.idle);
    let mut file: Option<ParquetFile> = None;
    let mut emit = |spans: Vec<spans::Span>, imported: &mut Imported| -> Result<()> {
        let steps = spans::steps(spans, opts, imported);
        number(steps, opts, imported);
        imported.write_out(&mut file, &path)
    };
    let mut names = Vec::new();
    for p in paths {
        let display = p.display().to_string();
        let mut n = 0usize;
        let mut take = |spans: Vec<spans::Span>, imported: &mut Imported| -> Result<()> {
            n += spans.len();
            for s in spans {
                held.push(s);
            }
            if held.full() {
                emit(held.release(false), imported)?;
            }
            Ok(())
        };
        match format {
            TraceFormat::Otlp | TraceFormat::Phoenix | TraceFormat::Mlflow => {
                let f = std::fs::File::open(p).map_err(|e| Error::io(&display, e))?;
                let read_from: ReadFrom = match format {
                    TraceFormat::Otlp => otlp::read_from,
                    TraceFormat::Phoenix => phoenix::read_from,
                    _ => mlflow::read_from,
                };
                read_from(Input::open(&display, f)?, &mut |s| take(s, &mut imported))?;
            }
            TraceFormat::McpLog | TraceFormat::Bfcl => {
                return Err(Error::Input(format!(
                    "{} files are not spans: read them with `import`",
                    format.name()
                )));
            }
        }
        imported.records += n;
        imported.per_input.push((display.clone(), n));
        names.push(display);
    }
    emit(held.release(true), &mut imported)?;
    imported.released = held.released;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    imported.check(format, &names, opts, allow_unmatched)?;
    let mut lines = imported.summary(format);
    if let Some(f) = file {
        lines.push(format!("-> {}", f.finish()?.display()));
    }
    lines.extend(imported.unmatched());
    lines.extend(imported.lacking_lines());
    Ok(lines)
}

/// Writes what was imported under `out`: `traces/FORMAT.parquet`, and for logged
/// tools/list answers `snapshots/FORMAT.parquet`. Returns what to tell the user, a line
/// each: per input what it took, the files written, traces tied to no case, what the
/// input lacked.
pub fn write(
    imported: &Imported,
    format: TraceFormat,
    out: &std::path::Path,
) -> Result<Vec<String>> {
    let mut lines = imported.summary(format);
    let name = format.name();
    let path = out.join("traces").join(format!("{name}.parquet"));
    write_batch(&path, &steps_batch(&imported.steps)?)?;
    lines.push(format!("-> {}", path.display()));
    lines.extend(imported.unmatched());
    if !imported.snapshots.is_empty() {
        let path = out.join("snapshots").join(format!("{name}.parquet"));
        write_batch(
            &path,
            &rows_batch(&crate::model::TOOL_SNAPSHOTS, &imported.snapshots)?,
        )?;
        lines.push(format!(
            "{} tool definition(s) from tools/list: {}",
            imported.snapshots.len(),
            path.display()
        ));
    }
    lines.extend(imported.lacking_lines());
    Ok(lines)
}

/// `import bfcl`: BFCL's question and answer files made into `out/cases.jsonl` (cases
/// with expected calls) and the model's calls into `out/traces/bfcl-SERVER.parquet`.
/// Returns what to tell the user, a line each.
pub fn write_bfcl(
    files: &[TraceFile],
    run_id: &str,
    server: &str,
    out: &std::path::Path,
) -> Result<Vec<String>> {
    let read = bfcl::read(files, run_id, server)?;
    let mut lines = read.notes.clone();
    if !read.cases.is_empty() {
        let mut text = String::new();
        for c in &read.cases {
            text.push_str(&c.to_string());
            text.push('\n');
        }
        let path = out.join("cases.jsonl");
        crate::output::write_atomic(&path, text.as_bytes())
            .map_err(|e| Error::io(path.display(), e))?;
        lines.push(format!("-> {}", path.display()));
    }
    if !read.steps.is_empty() {
        let steps = steps_batch(&read.steps)?;
        let path = out.join("traces").join(format!("bfcl-{server}.parquet"));
        write_batch(&path, &steps)?;
        lines.push(format!("-> {}", path.display()));
    }
    Ok(lines)
}

fn write_batch(path: &std::path::Path, b: &RecordBatch) -> Result<()> {
    let mut f = crate::output::ParquetFile::create(path, b.schema())?;
    f.write(b)?;
    f.finish()?;
    Ok(())
}

pub fn import(format: TraceFormat, files: &[TraceFile], opts: &Options) -> Result<Imported> {
    let mut steps = Vec::new();
    let mut out = Imported::default();
    let mut all_spans = Vec::new();
    for f in files {
        let before = all_spans.len();
        let records = out.records;
        match format {
            TraceFormat::Otlp => otlp::read(f, &mut all_spans)?,
            TraceFormat::Phoenix => phoenix::read(f, &mut all_spans)?,
            TraceFormat::Mlflow => mlflow::read(f, &mut all_spans)?,
            TraceFormat::McpLog => mcp_log::read(f, opts, &mut steps, &mut out)?,
            TraceFormat::Bfcl => {
                return Err(Error::Input(
                    "BFCL files are cases and steps: read them with bfcl::read".into(),
                ));
            }
        }
        let n = if format == TraceFormat::McpLog {
            out.records - records
        } else {
            all_spans.len() - before
        };
        out.per_input.push((f.display.clone(), n));
    }
    if format != TraceFormat::McpLog {
        out.records = all_spans.len();
        steps = spans::steps(all_spans, opts, &mut out);
    } else {
        for s in steps.iter_mut().filter(|s| s.case_id.is_none()) {
            s.case_id = opts.cases_by_trace.get(&s.trace_id).cloned();
        }
    }
    number(steps, opts, &mut out);
    Ok(out)
}

fn rfc3339(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Orders each trace's steps by time (then input order), numbers them, and makes rows.
pub(crate) fn number(mut steps: Vec<Step>, opts: &Options, out: &mut Imported) {
    steps.sort_by(|a, b| (&a.trace_id, a.ts, a.seq).cmp(&(&b.trace_id, b.ts, b.seq)));
    let run_id = if opts.run_id.is_empty() {
        "import"
    } else {
        &opts.run_id
    };
    // A trace without its question or its final answer is not wrong, it is unknown:
    // say so here (labels leave such a task undecided, with the reason, for review).
    let mut asked: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    for s in &steps {
        let e = asked.entry(s.trace_id.as_str()).or_default();
        e.0 |= s.kind == "user";
        e.1 |= s.kind == "answer";
    }
    let no_question = asked.values().filter(|(q, _)| !q).count();
    let no_answer = asked.values().filter(|(_, a)| !a).count();
    for (what, k) in [
        ("question (no user step) in traces", no_question),
        ("final answer (no answer step) in traces", no_answer),
    ] {
        if k > 0 {
            *out.lacking.entry(what.to_string()).or_default() += k;
        }
    }
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
        put("arguments", s.arguments);
        put("result", s.result);
        put("is_error", s.is_error.map(Value::from));
        put("as_of", s.as_of.as_ref().map(|t| json!(rfc3339(t))));
        put("as_user", s.as_user.map(Value::from));
        put("model", s.model.map(Value::from));
        put("input_tokens", s.input_tokens.map(Value::from));
        put("output_tokens", s.output_tokens.map(Value::from));
        put("text", s.text.map(Value::from));
        put("span_id", s.span_id.map(Value::from));
        out.steps.push(Value::Object(m));
    }
}

/// `steps` rows holding JSON values (as JSONL holds them) as a `steps` batch.
pub fn steps_batch(rows: &[Value]) -> Result<RecordBatch> {
    rows_batch(&crate::model::STEPS, rows)
}

/// Rows holding JSON values, as JSONL holds them, as a batch of `spec`'s table: each
/// column model.rs marks JSON is stored as the JSON text of its value.
pub fn rows_batch(spec: &crate::model::TableSpec, rows: &[Value]) -> Result<RecordBatch> {
    let json: Vec<&str> = spec
        .cols
        .iter()
        .filter(|c| matches!(c.ty, crate::model::Ty::Json))
        .map(|c| c.name)
        .collect();
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            for k in &json {
                if let Some(v) = r.get_mut(*k).filter(|v| !v.is_null()) {
                    *v = Value::String(v.to_string());
                }
            }
            r
        })
        .collect();
    batch(&spec.schema, &rows)
}

fn batch(schema: &arrow::datatypes::SchemaRef, rows: &[Value]) -> Result<RecordBatch> {
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

/// The largest message or JSON line read from an input: a request body the Collector
/// would take is far smaller; past this the input is refused, not read into memory.
pub const MAX_MESSAGE: usize = 256 << 20;

/// What each span format reads an input with: its spans handed on as they are read.
pub type ReadFrom = fn(Input, &mut dyn FnMut(Vec<spans::Span>) -> Result<()>) -> Result<()>;

/// The spans of a file held in memory, as the format's `read_from` reads them.
fn held(f: &TraceFile, out: &mut Vec<spans::Span>, read_from: ReadFrom) -> Result<()> {
    let input = Input::open(&f.display, std::io::Cursor::new(&f.bytes[..]))?;
    read_from(input, &mut |spans| {
        out.extend(spans);
        Ok(())
    })
}

/// A read error of `display`, named for what failed: the gzip, or the file.
fn read_error(display: &str, gz: bool, e: std::io::Error) -> Error {
    if gz {
        Error::Input(format!("{display}: not valid gzip: {e}"))
    } else {
        Error::Input(format!("{display}: {e}"))
    }
}

/// An input read as it streams: gzip inflated as read, the white space before its first
/// byte taken off and kept (in a binary format it is data).
pub struct Input<'a> {
    display: &'a str,
    r: Box<dyn std::io::BufRead + 'a>,
    gz: bool,
    /// The first byte that is not white space; None when there is none.
    pub first: Option<u8>,
    pub skipped: Vec<u8>,
}

impl<'a> Input<'a> {
    pub fn open(display: &'a str, input: impl std::io::Read + 'a) -> Result<Self> {
        use std::io::BufRead;
        let mut raw = std::io::BufReader::with_capacity(1 << 20, input);
        let gz = raw
            .fill_buf()
            .map_err(|e| Error::Input(format!("{display}: {e}")))?
            .starts_with(&[0x1f, 0x8b]);
        let r: Box<dyn BufRead + 'a> = if gz {
            Box::new(std::io::BufReader::with_capacity(
                1 << 20,
                flate2::read::MultiGzDecoder::new(raw),
            ))
        } else {
            Box::new(raw)
        };
        let mut input = Self {
            display,
            r,
            gz,
            first: None,
            skipped: Vec::new(),
        };
        loop {
            let buf = input.r.fill_buf().map_err(|e| read_error(display, gz, e))?;
            if buf.is_empty() {
                return Ok(input);
            }
            match buf.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(i) => {
                    input.first = Some(buf[i]);
                    input.skipped.extend_from_slice(&buf[..i]);
                    input.r.consume(i);
                    return Ok(input);
                }
                None => {
                    let n = buf.len();
                    input.skipped.extend_from_slice(buf);
                    input.r.consume(n);
                }
            }
        }
    }

    /// The input's name, for messages.
    pub fn display(&self) -> &'a str {
        self.display
    }

    /// A read error, named for what failed: the gzip, or the file.
    fn error(&self) -> impl Fn(std::io::Error) -> Error + use<'a> {
        let (display, gz) = (self.display, self.gz);
        move |e| read_error(display, gz, e)
    }

    /// Everything, the leading white space included.
    pub fn rest(mut self) -> Result<Vec<u8>> {
        use std::io::Read;
        let mut bytes = std::mem::take(&mut self.skipped);
        let error = self.error();
        self.r.read_to_end(&mut bytes).map_err(error)?;
        Ok(bytes)
    }

    /// Fills `buf` as far as the input goes; how many bytes it got.
    pub fn read_full(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.r.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.error()(e)),
            }
        }
        Ok(got)
    }

    /// One line into `buf` (refusing one longer than `MAX_MESSAGE`); its length.
    fn line(&mut self, buf: &mut Vec<u8>, line: usize) -> Result<usize> {
        use std::io::{BufRead, Read};
        let error = self.error();
        let n = (&mut self.r)
            .take(MAX_MESSAGE as u64 + 1)
            .read_until(b'\n', buf)
            .map_err(error)?;
        if buf.len() > MAX_MESSAGE {
            return Err(bad(
                self.display,
                line,
                1,
                format!("a line over {} MiB; refused", MAX_MESSAGE >> 20),
            ));
        }
        Ok(n)
    }

    /// The JSON documents of the input, each with its line, as `documents` gives them:
    /// JSON lines (when the first line is a document of its own) read a line at a time,
    /// else one document read whole.
    pub fn documents(mut self, each: &mut dyn FnMut(usize, Value) -> Result<()>) -> Result<()> {
        let mut line = self.skipped.iter().filter(|&&b| b == b'\n').count() + 1;
        let mut text = Vec::new();
        self.line(&mut text, line)?;
        if let Ok(doc) = serde_json::from_slice::<Value>(&text) {
            each(line, doc)?;
            loop {
                line += 1;
                text.clear();
                if self.line(&mut text, line)? == 0 {
                    return Ok(());
                }
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let doc = serde_json::from_slice::<Value>(&text)
                    .map_err(|e| bad(self.display, line, e.column(), json_error(&e)))?;
                each(line, doc)?;
            }
        }
        let display = self.display.to_string();
        let mut bytes = std::mem::take(&mut self.skipped);
        bytes.extend_from_slice(&text);
        bytes.extend(self.rest()?);
        for (line, doc) in documents(&TraceFile { display, bytes })? {
            each(line, doc)?;
        }
        Ok(())
    }
}

/// JSON documents of a file: one document, or JSON lines. A document that does not parse
/// is an error naming its line and column (a truncated file included).
pub(crate) fn documents(f: &TraceFile) -> Result<Vec<(usize, Value)>> {
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
