//! Streams JSONL files from any object store into Arrow batches of a table's schema.
//!
//! Files are read in chunks and split into lines here, so memory stays at one batch plus
//! one line, whatever the file size. Each line is checked (`validate`) before it reaches the
//! decoder; a bad line either stops the read with an error naming file, line and field, or
//! goes to the rejects sink. No line is skipped without being counted, except blank ones.

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::json::reader::ReaderBuilder;
use bytes::Bytes;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::stream::{self, BoxStream, StreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde_json::Value;

use super::rejects::{RawLine, Reject, Rejects};
use super::validate::{Problem, check_line};
use crate::error::Error;
use crate::model::TableSpec;

/// What to do with a line that does not fit the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OnBadLine {
    /// Stop with an error naming file, line and field.
    #[default]
    Fail,
    /// Keep going; write the line and its reason to the rejects file.
    Skip,
}

#[derive(Debug, Clone)]
pub struct ReadOptions {
    pub on_bad_line: OnBadLine,
    /// Lines longer than this are refused (they would otherwise be held whole in memory).
    pub max_line_bytes: usize,
    pub batch_size: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            on_bad_line: OnBadLine::Fail,
            max_line_bytes: 16 * 1024 * 1024,
            batch_size: 8192,
        }
    }
}

/// One file to read: where it is and the name errors give it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub store: Arc<dyn ObjectStore>,
    pub meta: ObjectMeta,
    pub display: String,
    /// Where the file really is, when that is outside the folder it was listed from (a
    /// symlink out of the project): its bad lines are named in rejects, not copied.
    pub outside: Option<String>,
}

/// Called with the number of bytes consumed, for progress bars.
pub type Progress = Arc<dyn Fn(u64) + Send + Sync>;

/// Reads `files` in order as one stream of batches of `spec`'s schema.
pub fn read_jsonl(
    spec: &'static TableSpec,
    files: Vec<SourceFile>,
    opts: ReadOptions,
    rejects: Rejects,
    progress: Option<Progress>,
) -> SendableRecordBatchStream {
    let outside = files
        .iter()
        .filter_map(|f| f.outside.clone().map(|o| (f.display.clone(), o)))
        .collect();
    let reader = Reader {
        spec,
        outside,
        files: files.into_iter().rev().collect(),
        opts,
        rejects,
        progress,
        current: None,
        done: false,
        seen: std::collections::HashMap::new(),
    };
    let batches = stream::unfold(reader, |mut r| async move {
        if r.done {
            return None;
        }
        match r.next_batch().await {
            Ok(Some(batch)) => Some((Ok(batch), r)),
            Ok(None) => None,
            Err(e) => {
                r.done = true;
                Some((Err(e), r))
            }
        }
    });
    Box::pin(RecordBatchStreamAdapter::new(spec.schema.clone(), batches))
}

struct Reader {
    spec: &'static TableSpec,
    /// Files (by display name) that resolve outside their folder, and where to.
    outside: std::collections::HashMap<String, String>,
    /// Files still to open, last first.
    files: Vec<SourceFile>,
    opts: ReadOptions,
    rejects: Rejects,
    progress: Option<Progress>,
    current: Option<OpenFile>,
    done: bool,
    /// Unique keys seen so far, with the file and line that had each first.
    seen: std::collections::HashMap<String, (String, u64)>,
}

struct OpenFile {
    display: String,
    chunks: BoxStream<'static, object_store::Result<Bytes>>,
    buf: Vec<u8>,
    /// Start of the unread part of `buf`.
    pos: usize,
    /// Byte offset of `buf[pos]` in the file.
    offset: u64,
    /// Number of the next line to complete, from 1.
    line: u64,
    eof: bool,
    /// Inside a line longer than the limit: its first bytes and start offset.
    oversized: Option<(Vec<u8>, u64)>,
}

/// A checked row, `None` for a blank line, or the line number, problem and raw line.
type Checked = std::result::Result<Option<Value>, (u64, Problem, RawLine)>;

/// What became of one line.
enum Status {
    Row,
    Blank,
    Bad(u64, Problem, RawLine),
}

/// Some lines' statuses, their good rows as one batch (none when there are none), and
/// each good row's unique key (tables that have one).
type Decoded = (Vec<Status>, Option<RecordBatch>, Vec<Option<String>>);

/// Checks lines and decodes the good ones into a batch of the table's schema.
fn decode(spec: &TableSpec, max_line_bytes: usize, lines: &[(String, Line)]) -> Result<Decoded> {
    let mut rows = Vec::with_capacity(lines.len());
    let mut keys = Vec::new();
    let unique = spec.unique;
    let statuses = lines
        .iter()
        .map(|(_, l)| match check(spec, max_line_bytes, l) {
            Ok(Some(v)) => {
                if let Some(k) = unique {
                    keys.push(v.get(k).and_then(Value::as_str).map(str::to_string));
                }
                rows.push(v);
                Status::Row
            }
            Ok(None) => Status::Blank,
            Err((number, problem, raw)) => Status::Bad(number, problem, raw),
        })
        .collect();
    if rows.is_empty() {
        return Ok((statuses, None, keys));
    }
    let mut decoder = ReaderBuilder::new(spec.schema.clone())
        .with_batch_size(rows.len())
        .build_decoder()?;
    decoder.serialize(&rows)?;
    Ok((statuses, decoder.flush()?, keys))
}

impl Line {
    fn number(&self) -> u64 {
        match self {
            Line::Text { number, .. } | Line::Oversized { number, .. } => *number,
        }
    }

    /// The line as a rejects file keeps it.
    fn raw(&self) -> RawLine {
        match self {
            Line::Text { bytes, .. } => match std::str::from_utf8(bytes) {
                Ok(t) => RawLine::Text(t.to_string()),
                Err(_) => RawLine::Bytes(bytes.clone()),
            },
            Line::Oversized {
                prefix,
                offset,
                len,
                ..
            } => RawLine::Truncated {
                prefix: prefix.clone(),
                byte_offset: *offset,
                bytes: *len,
            },
        }
    }
}

/// One complete line, or the record of one too long to keep.
enum Line {
    Text {
        number: u64,
        bytes: Vec<u8>,
    },
    Oversized {
        number: u64,
        prefix: Vec<u8>,
        offset: u64,
        len: u64,
    },
}

impl Reader {
    async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let size = self.opts.batch_size;
        // Lines are split here, then parsed, checked and decoded to Arrow on every core;
        // problems are handled in line order, and a batch holds `batch_size` rows.
        let mut parts: Vec<RecordBatch> = Vec::new();
        let mut rows = 0;
        let mut ended = false;
        while rows < size && !ended {
            let mut lines = Vec::with_capacity(size - rows);
            while lines.len() < size - rows {
                match self.next_line().await? {
                    Some(l) => lines.push(l),
                    None => {
                        ended = true;
                        break;
                    }
                }
            }
            let mut statuses = Vec::with_capacity(lines.len());
            let mut keys = Vec::new();
            let mut decoded = Vec::new();
            for (s, batch, k) in self.decode_all(&lines)? {
                statuses.extend(s);
                decoded.extend(batch);
                keys.extend(k);
            }
            // Rows whose unique key repeats an earlier line's are bad lines themselves.
            let mut keep = Vec::new();
            let mut keys = keys.into_iter();
            for ((display, line), status) in lines.iter().zip(statuses) {
                match status {
                    Status::Row => {
                        let key = keys.next().flatten();
                        let number = line.number();
                        let repeat = key.as_ref().and_then(|k| self.seen.get(k)).cloned();
                        match (key, repeat) {
                            (Some(k), Some((file, first))) => {
                                keep.push(false);
                                let problem = Problem {
                                    field: self.spec.unique.map(str::to_string),
                                    reason: format!(
                                        "'{k}' repeats {file}:{first} (it must be unique)"
                                    ),
                                };
                                self.bad_line(display, number, problem, line.raw())?;
                            }
                            (Some(k), None) => {
                                self.seen.insert(k, (display.clone(), number));
                                keep.push(true);
                                rows += 1;
                            }
                            (None, _) => {
                                keep.push(true);
                                rows += 1;
                            }
                        }
                    }
                    Status::Blank => {}
                    Status::Bad(number, problem, raw) => {
                        self.bad_line(display, number, problem, raw)?
                    }
                }
            }
            if keep.iter().all(|k| *k) {
                parts.extend(decoded);
            } else {
                let all = arrow::compute::concat_batches(&self.spec.schema, &decoded)?;
                let mask = arrow::array::BooleanArray::from(keep);
                parts.push(arrow::compute::filter_record_batch(&all, &mask)?);
            }
        }
        if rows == 0 {
            return Ok(None);
        }
        Ok(Some(arrow::compute::concat_batches(
            &self.spec.schema,
            &parts,
        )?))
    }

    /// The lines checked and decoded, in order, in parts spread over the machine's cores
    /// (few lines on this thread): each part's statuses and its rows as a batch.
    fn decode_all(&self, lines: &[(String, Line)]) -> Result<Vec<Decoded>> {
        let (spec, max) = (self.spec, self.opts.max_line_bytes);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        if threads == 1 || lines.len() < 256 {
            return Ok(vec![decode(spec, max, lines)?]);
        }
        let per = lines.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let parts: Vec<_> = lines
                .chunks(per)
                .map(|part| scope.spawn(move || decode(spec, max, part)))
                .collect();
            parts
                .into_iter()
                .map(|p| p.join().expect("a line check panicked"))
                .collect()
        })
    }

    fn bad_line(&self, file: &str, line: u64, problem: Problem, raw: RawLine) -> Result<()> {
        match self.opts.on_bad_line {
            OnBadLine::Fail => Err(Error::BadLine {
                file: file.to_string(),
                line,
                field: problem.field,
                reason: problem.reason,
            }
            .into()),
            OnBadLine::Skip => {
                let raw = match self.outside.get(file) {
                    Some(real) => RawLine::Withheld(format!(
                        "not copied: {file} resolves to {real}, outside the folder it was listed from"
                    )),
                    None => raw,
                };
                self.rejects.add(Reject {
                    table: self.spec.name.to_string(),
                    file: file.to_string(),
                    line,
                    field: problem.field,
                    reason: problem.reason,
                    raw,
                });
                Ok(())
            }
        }
    }

    /// The next line of the current file, opening the next file when one ends.
    async fn next_line(&mut self) -> Result<Option<(String, Line)>> {
        loop {
            if self.current.is_none() {
                let Some(f) = self.files.pop() else {
                    return Ok(None);
                };
                let display = f.display.clone();
                let chunks = f
                    .store
                    .get(&f.meta.location)
                    .await
                    .map_err(|e| Error::Input(format!("{display}: {e}")))?
                    .into_stream();
                self.current = Some(OpenFile {
                    display,
                    chunks,
                    buf: Vec::new(),
                    pos: 0,
                    offset: 0,
                    line: 1,
                    eof: false,
                    oversized: None,
                });
            }
            let file = self.current.as_mut().expect("opened above");
            if let Some(line) = file.split_line(self.opts.max_line_bytes) {
                return Ok(Some((file.display.clone(), line)));
            }
            if file.eof {
                self.current = None;
                continue;
            }
            match file.chunks.next().await {
                Some(Ok(chunk)) => {
                    if let Some(p) = &self.progress {
                        p(chunk.len() as u64);
                    }
                    file.push(&chunk);
                }
                Some(Err(e)) => {
                    return Err(DataFusionError::from(Error::Input(format!(
                        "{}: read failed: {e}",
                        file.display
                    ))));
                }
                None => file.eof = true,
            }
        }
    }
}

/// A checked row, `None` for a blank line, or the problem with the raw line.
fn check(spec: &TableSpec, max_line_bytes: usize, line: &Line) -> Checked {
    match *line {
        Line::Oversized {
            number,
            ref prefix,
            offset,
            len,
        } => Err((
            number,
            Problem::line(format!(
                "line of {len} bytes is longer than the limit of {} bytes (--max-line-bytes)",
                max_line_bytes
            )),
            RawLine::Truncated {
                prefix: prefix.clone(),
                byte_offset: offset,
                bytes: len,
            },
        )),
        Line::Text { number, ref bytes } => {
            let text = match std::str::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    return Err((
                        number,
                        Problem::line(format!(
                            "invalid UTF-8 at byte {} of the line",
                            e.valid_up_to()
                        )),
                        RawLine::Bytes(bytes.clone()),
                    ));
                }
            };
            // A byte order mark (Windows editors write one) opens the file, not the JSON.
            let text = match number {
                1 => text.strip_prefix('\u{feff}').unwrap_or(text),
                _ => text,
            };
            if text.trim().is_empty() {
                return Ok(None);
            }
            check_line(spec, text)
                .map(Some)
                .map_err(|p| (number, p, RawLine::Text(text.to_string())))
        }
    }
}

impl OpenFile {
    /// Takes one complete line off the buffer, if there is one (at end of file, the last
    /// line need not end in a newline).
    fn split_line(&mut self, max: usize) -> Option<Line> {
        let rest = &self.buf[self.pos..];
        let newline = rest.iter().position(|&b| b == b'\n');
        let end = match newline {
            Some(i) => i,
            None if self.eof && (!rest.is_empty() || self.oversized.is_some()) => rest.len(),
            None => {
                // No end in sight: past the limit, keep only the start of the line.
                if rest.len() > max || self.oversized.is_some() {
                    if self.oversized.is_none() {
                        self.oversized = Some((rest[..rest.len().min(1024)].to_vec(), self.offset));
                    }
                    self.offset += rest.len() as u64;
                    self.buf.clear();
                    self.pos = 0;
                }
                return None;
            }
        };
        let consumed = end + usize::from(newline.is_some());
        let mut bytes = &rest[..end];
        if bytes.last() == Some(&b'\r') {
            bytes = &bytes[..end - 1];
        }
        let number = self.line;
        self.line += 1;
        let start = self.offset;
        self.offset += consumed as u64;
        let line = if let Some((prefix, offset)) = self.oversized.take() {
            Line::Oversized {
                number,
                prefix,
                offset,
                len: start + end as u64 - offset,
            }
        } else if bytes.len() > max {
            Line::Oversized {
                number,
                prefix: bytes[..1024.min(bytes.len())].to_vec(),
                offset: start,
                len: bytes.len() as u64,
            }
        } else {
            Line::Text {
                number,
                bytes: bytes.to_vec(),
            }
        };
        self.pos += consumed;
        Some(line)
    }

    /// Appends a chunk, first dropping the lines already taken.
    fn push(&mut self, chunk: &[u8]) {
        self.buf.drain(..self.pos);
        self.pos = 0;
        self.buf.extend_from_slice(chunk);
    }
}
