//! `groundcheck collect`: an OTLP receiver that agents export to directly (OTLP/HTTP
//! `POST /v1/traces`, protobuf or JSON, gzip or not; OTLP/gRPC). Every accepted request
//! is kept as it came (the Collector's length-prefixed protobuf file, rotated), so nothing
//! is lost; a trace whose spans stopped arriving for `idle` is made into steps and written
//! as a Parquet file of its own batch. Files appear under their final names only when
//! whole (temporary name, then rename). A shutdown writes out everything still held.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

use super::spans::Span;
use super::{Imported, Options};
use crate::error::{Error, Result};
use crate::output::{ParquetFile, temp_name};

#[derive(Debug, Clone)]
pub struct CollectOptions {
    pub out: PathBuf,
    pub import: Options,
    /// A trace is written once no span of it arrived for this long.
    pub idle: Duration,
    /// The raw archive file rotates past this many bytes.
    pub rotate_bytes: u64,
    /// Bytes of spans held at most (roughly): past it, the traces that went longest
    /// without a span are written before their idle time is up.
    pub memory: usize,
}

#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub requests: u64,
    pub bad_requests: u64,
    pub spans: u64,
    /// Spans of a trace already written (kept in the archive; `import otlp` of the archive
    /// has them in place).
    pub late_spans: u64,
    pub traces: u64,
    pub traces_with_case: u64,
    /// Traces written before their idle time was up, to stay within the memory bound.
    pub traces_cut: u64,
    pub steps: u64,
    pub files: Vec<PathBuf>,
}

struct Archive {
    dir: PathBuf,
    n: usize,
    file: Option<(std::fs::File, PathBuf, u64)>,
}

impl Archive {
    fn path(&self) -> PathBuf {
        self.dir.join(format!("spans-{:04}.otlp.pb", self.n))
    }

    fn append(&mut self, bytes: &[u8], rotate: u64) -> Result<()> {
        if self.file.is_none() {
            std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(self.dir.display(), e))?;
            self.n += 1;
            let path = self.path();
            let tmp = temp_name(&path);
            let f = std::fs::File::create(&tmp).map_err(|e| Error::io(tmp.display(), e))?;
            self.file = Some((f, path, 0));
        }
        let (f, path, size) = self.file.as_mut().expect("opened above");
        f.write_all(&(bytes.len() as u32).to_be_bytes())
            .and_then(|_| f.write_all(bytes))
            .and_then(|_| f.flush())
            .map_err(|e| Error::io(path.display(), e))?;
        *size += 4 + bytes.len() as u64;
        if *size >= rotate {
            self.close()?;
        }
        Ok(())
    }

    /// Puts the current file under its final name.
    fn close(&mut self) -> Result<()> {
        if let Some((f, path, _)) = self.file.take() {
            f.sync_all().map_err(|e| Error::io(path.display(), e))?;
            drop(f);
            std::fs::rename(temp_name(&path), &path).map_err(|e| Error::io(path.display(), e))?;
        }
        Ok(())
    }
}

struct State {
    /// Spans held per OTLP trace, with when the last one came and their size.
    pending: BTreeMap<String, (Instant, Vec<Span>, usize)>,
    /// Bytes held in `pending`.
    bytes: usize,
    written: HashSet<String>,
    archive: Archive,
    batch: usize,
    stats: Stats,
}

pub struct Collector {
    opts: CollectOptions,
    state: Mutex<State>,
    /// Serializes writing steps files (taken outside the state lock).
    writing: Mutex<()>,
    stamp: String,
}

impl Collector {
    pub fn new(opts: CollectOptions) -> Arc<Self> {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S").to_string();
        let dir = opts.out.join("collect");
        Arc::new(Self {
            state: Mutex::new(State {
                pending: BTreeMap::new(),
                bytes: 0,
                written: HashSet::new(),
                archive: Archive {
                    dir,
                    n: 0,
                    file: None,
                },
                batch: 0,
                stats: Stats::default(),
            }),
            writing: Mutex::new(()),
            stamp,
            opts,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves whole values behind: keep going.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes one export request: archived as protobuf (`raw`, the body as received, when
    /// it was protobuf already; JSON requests are encoded), its spans held per trace.
    pub fn accept(&self, req: ExportTraceServiceRequest, raw: Option<&[u8]>) -> Result<usize> {
        let bytes = match raw {
            Some(b) => b.to_vec(),
            None => req.encode_to_vec(),
        };
        let mut spans = Vec::new();
        super::otlp::spans_of(req, &mut spans);
        let mut st = self.lock();
        st.archive.append(&bytes, self.opts.rotate_bytes)?;
        st.stats.requests += 1;
        st.stats.spans += spans.len() as u64;
        let now = Instant::now();
        let n = spans.len();
        for s in spans {
            if st.written.contains(&s.trace_id) {
                st.stats.late_spans += 1;
                continue;
            }
            let n = super::open::size(&s);
            st.bytes += n;
            let e = st
                .pending
                .entry(s.trace_id.clone())
                .or_insert_with(|| (now, Vec::new(), 0));
            e.0 = now;
            e.1.push(s);
            e.2 += n;
        }
        Ok(n)
    }

    /// A body that is not an OTLP export: counted, and kept under collect/rejects/ so that
    /// nothing sent is lost.
    pub fn reject(&self, body: &[u8], why: &str) -> Result<PathBuf> {
        let mut st = self.lock();
        st.stats.bad_requests += 1;
        let path = self
            .opts
            .out
            .join("collect")
            .join("rejects")
            .join(format!("{}-{:04}.body", self.stamp, st.stats.bad_requests));
        crate::output::write_atomic(&path, body).map_err(|e| Error::io(path.display(), e))?;
        let note = path.with_extension("why.txt");
        crate::output::write_atomic(&note, why.as_bytes())
            .map_err(|e| Error::io(note.display(), e))?;
        Ok(path)
    }

    /// Writes the traces idle for `opts.idle` (all of them with `all`) as one steps file.
    pub fn flush(&self, all: bool) -> Result<Option<PathBuf>> {
        let _w = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let (spans, batch) = {
            let mut st = self.lock();
            let now = Instant::now();
            let mut ready: Vec<String> = st
                .pending
                .iter()
                .filter(|(_, (t, _, _))| all || now.duration_since(*t) >= self.opts.idle)
                .map(|(k, _)| k.clone())
                .collect();
            // Past the memory bound: the traces that went longest without a span too,
            // until half of it is free.
            let mut left = st.bytes - ready.iter().map(|k| st.pending[k].2).sum::<usize>();
            if !all && left > self.opts.memory {
                let mut rest: Vec<(Instant, &String, usize)> = st
                    .pending
                    .iter()
                    .filter(|(_, (t, _, _))| now.duration_since(*t) < self.opts.idle)
                    .map(|(k, (t, _, n))| (*t, k, *n))
                    .collect();
                rest.sort();
                let mut cut = Vec::new();
                for (_, k, n) in rest {
                    if left <= self.opts.memory / 2 {
                        break;
                    }
                    left -= n;
                    cut.push(k.clone());
                }
                st.stats.traces_cut += cut.len() as u64;
                ready.extend(cut);
            }
            if ready.is_empty() {
                if all {
                    st.archive.close()?;
                }
                return Ok(None);
            }
            let mut spans = Vec::new();
            for k in ready {
                if let Some((_, s, n)) = st.pending.remove(&k) {
                    st.bytes -= n;
                    spans.extend(s);
                }
                st.written.insert(k);
            }
            if all {
                st.archive.close()?;
            }
            st.batch += 1;
            (spans, st.batch)
        };
        let n_spans = spans.len();
        let mut imported = Imported {
            records: n_spans,
            ..Imported::default()
        };
        let steps = super::spans::steps(spans, &self.opts.import, &mut imported);
        super::number(steps, &self.opts.import, &mut imported);
        let (traces, cased) = imported.traces();
        let path = self
            .opts
            .out
            .join("traces")
            .join(format!("collect-{}-{batch:04}.parquet", self.stamp));
        if imported.steps.is_empty() {
            // Loud, batch by batch: the agent's spans follow no convention we read.
            eprintln!(
                "collect: warning: {n_spans} span(s) of finished traces gave no step (no tool \
                 call or model span any convention describes); they are in the archive"
            );
        } else {
            let b = super::steps_batch(&imported.steps)?;
            let mut f = ParquetFile::create(&path, b.schema())?;
            f.write(&b)?;
            f.finish()?;
        }
        let mut st = self.lock();
        st.stats.traces += traces as u64;
        st.stats.traces_with_case += cased as u64;
        st.stats.steps += imported.steps.len() as u64;
        if imported.steps.is_empty() {
            return Ok(None);
        }
        st.stats.files.push(path.clone());
        Ok(Some(path))
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }
}

/// Why a request body was refused: too large once inflated (HTTP 413), or not OTLP (400).
#[derive(Debug)]
pub enum Refused {
    TooLarge(String),
    Bad(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::TooLarge(s) | Refused::Bad(s) => f.write_str(s),
        }
    }
}

/// Decodes one OTLP/HTTP body by its content type (and encoding): protobuf, or JSON. A
/// gzip body may inflate to `max_bytes` at most; protobuf messages nest at most
/// `otlp::MAX_DEPTH` deep and JSON 128 levels (serde_json's limit).
pub fn decode_body(
    content_type: &str,
    gzip: bool,
    body: &[u8],
    max_bytes: usize,
) -> std::result::Result<ExportTraceServiceRequest, Refused> {
    let is_gzip = body.starts_with(&[0x1f, 0x8b]);
    if gzip && !is_gzip {
        return Err(Refused::Bad(
            "Content-Encoding: gzip, but the body is not gzip".into(),
        ));
    }
    let inflated;
    let bytes = if is_gzip {
        inflated = super::otlp::inflate(body, max_bytes).map_err(|e| {
            if e.starts_with("inflates past") {
                Refused::TooLarge(e)
            } else {
                Refused::Bad(e)
            }
        })?;
        &inflated[..]
    } else {
        body
    };
    if content_type.starts_with("application/json") {
        let mut doc: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| Refused::Bad(format!("not JSON: {e}")))?;
        super::otlp::request_from_json(&mut doc)
            .map_err(|e| Refused::Bad(format!("not OTLP JSON: {e}")))
    } else {
        super::otlp::decode_request(bytes).map_err(|e| {
            Refused::Bad(format!(
                "not an OTLP protobuf ExportTraceServiceRequest: {e}"
            ))
        })
    }
}

/// Where the raw archive goes, for messages.
pub fn archive_dir(out: &Path) -> PathBuf {
    out.join("collect")
}
