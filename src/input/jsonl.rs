//! Streams JSONL files from any object store into Arrow batches of a table's schema.
//!
//! Files are read in chunks and split into lines here, so memory stays at one batch plus
//! one line, whatever the file size. Each line is checked (`validate`) before it reaches the
//! decoder; a bad line either stops the read with an error naming file, line and field, or
//! goes to the rejects sink. No line is skipped without being counted, except blank ones.

use std::sync::Arc;

use arrow::array::RecordBatch;
use bytes::Bytes;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::stream::{self, BoxStream, StreamExt};
use object_store::{GetResultPayload, ObjectMeta, ObjectStore, ObjectStoreExt};

use super::decode::Columns;
use super::rejects::{RawLine, Reject, Rejects};
use super::validate::{Problem, check_line};
use crate::error::Error;
use crate::model::TableSpec;

/// What to do with a line that does not fit the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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
    /// Unique keys seen so far, with the file (shared by its lines) and line that had each
    /// first.
    seen: std::collections::HashMap<String, (Arc<str>, u64)>,
}

struct OpenFile {
    /// Shared by the file's lines (a clone per line is a count, not a copy).
    display: Arc<str>,
    chunks: BoxStream<'static, object_store::Result<Bytes>>,
    /// The chunk being split; a line inside it is a slice of it, not a copy.
    chunk: Bytes,
    /// Start of the unread part of `chunk`.
    pos: usize,
    /// The start of a line that began in an earlier chunk.
    pending: Vec<u8>,
    /// Byte offset of `chunk[pos]` in the file.
    offset: u64,
    /// Number of the next line to complete, from 1.
    line: u64,
    eof: bool,
    /// Inside a line longer than the limit: its first bytes and start offset.
    oversized: Option<(Vec<u8>, u64)>,
    /// The last byte carried over to the next chunk was a `\r` (of a `\r\n` split
    /// between chunks, which an oversized line's length leaves out).
    carried_cr: bool,
}

/// What became of one line.
enum Status {
    Row,
    Blank,
    Bad(u64, Problem, RawLine),
}

/// Some lines' statuses, their good rows as one batch (none when there are none), and
/// each good row's unique key (tables that have one).
type Decoded = (Vec<Status>, Option<RecordBatch>, Vec<Option<String>>);

/// Checks lines and decodes the good ones into a batch of the table's schema: straight
/// into Arrow columns, with `check_line` (and its reasons) only for lines refused there.
fn decode(
    spec: &'static TableSpec,
    max_line_bytes: usize,
    lines: &[(Arc<str>, Line)],
) -> Result<Decoded> {
    let mut cols = Columns::new(spec);
    let mut keys = Vec::new();
    let unique = spec
        .unique
        .and_then(|k| spec.cols.iter().position(|c| c.name == k));
    let mut statuses = Vec::with_capacity(lines.len());
    for (_, l) in lines {
        let status = match text_of(max_line_bytes, l) {
            Err((number, problem, raw)) => Status::Bad(number, problem, raw),
            Ok(None) => Status::Blank,
            Ok(Some(text)) if cols.push_line(text) => Status::Row,
            Ok(Some(text)) => match check_line(spec, text) {
                Ok(v) => {
                    cols.push_checked(&v).map_err(|e| {
                        DataFusionError::Internal(format!("checked row not decoded: {e}"))
                    })?;
                    Status::Row
                }
                Err(p) => Status::Bad(l.number(), p, RawLine::Text(text.to_string())),
            },
        };
        if let (Status::Row, Some(k)) = (&status, unique) {
            keys.push(cols.last_str(k).map(str::to_string));
        }
        statuses.push(status);
    }
    if cols.rows() == 0 {
        return Ok((statuses, None, keys));
    }
    Ok((statuses, Some(cols.finish()?), keys))
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
                Err(_) => RawLine::Bytes(bytes.to_vec()),
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
        bytes: Bytes,
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
    fn decode_all(&self, lines: &[(Arc<str>, Line)]) -> Result<Vec<Decoded>> {
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
    async fn next_line(&mut self) -> Result<Option<(Arc<str>, Line)>> {
        loop {
            if self.current.is_none() {
                let Some(f) = self.files.pop() else {
                    return Ok(None);
                };
                let display: Arc<str> = f.display.as_str().into();
                let got = f
                    .store
                    .get(&f.meta.location)
                    .await
                    .map_err(|e| Error::Input(format!("{display}: {e}")))?;
                let chunks = match got.payload {
                    GetResultPayload::File(file, path) => file_chunks(file, path),
                    GetResultPayload::Stream(s) => s,
                };
                self.current = Some(OpenFile {
                    display,
                    chunks,
                    chunk: Bytes::new(),
                    pos: 0,
                    pending: Vec::new(),
                    offset: 0,
                    line: 1,
                    eof: false,
                    oversized: None,
                    carried_cr: false,
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
                    file.push(chunk);
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

/// Bytes of an oversized line kept for its rejects record.
const PREFIX: usize = 1024;

/// Adds to an oversized line's prefix from `more`, up to `PREFIX` bytes.
fn extend_prefix(prefix: &mut Vec<u8>, more: &[u8]) {
    let room = PREFIX.saturating_sub(prefix.len()).min(more.len());
    prefix.extend_from_slice(&more[..room]);
}

/// A local file's bytes in large reads, each on tokio's blocking pool. (object_store reads
/// a local file 8 KiB at a time, a hand-off between threads per read: a third of ingest's
/// time went to waking threads.)
fn file_chunks(
    file: std::fs::File,
    path: std::path::PathBuf,
) -> BoxStream<'static, object_store::Result<Bytes>> {
    const CHUNK: u64 = 1 << 20;
    stream::try_unfold(Some(file), move |file| {
        let path = path.clone();
        async move {
            let Some(file) = file else {
                return Ok(None);
            };
            let read = tokio::task::spawn_blocking(move || {
                use std::io::Read;
                let mut buf = Vec::with_capacity(CHUNK as usize);
                let mut f = file;
                (&mut f).take(CHUNK).read_to_end(&mut buf).map(|_| (buf, f))
            })
            .await;
            let unreadable = |e: String| object_store::Error::Generic {
                store: "LocalFileSystem",
                source: format!("{}: {e}", path.display()).into(),
            };
            match read {
                Ok(Ok((buf, _))) if buf.is_empty() => Ok(None),
                Ok(Ok((buf, f))) => Ok(Some((Bytes::from(buf), Some(f)))),
                Ok(Err(e)) => Err(unreadable(e.to_string())),
                Err(e) => Err(unreadable(e.to_string())),
            }
        }
    })
    .boxed()
}

/// The line's text, `None` for a blank line, or why it cannot be read as JSON text at all.
fn text_of(max_line_bytes: usize, line: &Line) -> Result<Option<&str>, (u64, Problem, RawLine)> {
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
            let text = std::str::from_utf8(bytes).map_err(|e| {
                (
                    number,
                    Problem::line(format!(
                        "invalid UTF-8 at byte {} of the line",
                        e.valid_up_to()
                    )),
                    RawLine::Bytes(bytes.to_vec()),
                )
            })?;
            // A byte order mark (Windows editors write one) opens the file, not the JSON.
            let text = match number {
                1 => text.strip_prefix('\u{feff}').unwrap_or(text),
                _ => text,
            };
            Ok((!text.trim().is_empty()).then_some(text))
        }
    }
}

impl OpenFile {
    /// Takes one complete line off the buffer, if there is one (at end of file, the last
    /// line need not end in a newline).
    fn split_line(&mut self, max: usize) -> Option<Line> {
        let rest = &self.chunk[self.pos..];
        let newline = memchr::memchr(b'\n', rest);
        let started = !self.pending.is_empty() || self.oversized.is_some();
        let end = match newline {
            Some(i) => i,
            None if self.eof && (!rest.is_empty() || started) => rest.len(),
            None => {
                // The line goes on in the next chunk: keep its start, or, past the limit,
                // only its first bytes.
                if self.oversized.is_none() && self.pending.len() + rest.len() > max {
                    let mut prefix = std::mem::take(&mut self.pending);
                    let line_start = self.offset - prefix.len() as u64;
                    prefix.truncate(PREFIX);
                    extend_prefix(&mut prefix, rest);
                    self.oversized = Some((prefix, line_start));
                } else if let Some((prefix, _)) = &mut self.oversized {
                    extend_prefix(prefix, rest);
                } else {
                    self.pending.extend_from_slice(rest);
                }
                if let Some(&last) = rest.last() {
                    self.carried_cr = last == b'\r';
                }
                self.offset += rest.len() as u64;
                self.pos = self.chunk.len();
                return None;
            }
        };
        let consumed = end + usize::from(newline.is_some());
        let number = self.line;
        self.line += 1;
        let line_start = self.offset - self.pending.len() as u64;
        let line = if let Some((mut prefix, offset)) = self.oversized.take() {
            extend_prefix(&mut prefix, &rest[..end]);
            let cr = match end {
                0 => self.carried_cr,
                _ => rest[end - 1] == b'\r',
            };
            let len = self.offset + end as u64 - offset - u64::from(cr);
            prefix.truncate(len.min(PREFIX as u64) as usize);
            Line::Oversized {
                number,
                prefix,
                offset,
                len,
            }
        } else {
            let mut bytes = if self.pending.is_empty() {
                self.chunk.slice(self.pos..self.pos + end)
            } else {
                let mut b = std::mem::take(&mut self.pending);
                b.extend_from_slice(&rest[..end]);
                Bytes::from(b)
            };
            if bytes.last() == Some(&b'\r') {
                bytes.truncate(bytes.len() - 1);
            }
            if bytes.len() > max {
                Line::Oversized {
                    number,
                    prefix: bytes[..PREFIX.min(bytes.len())].to_vec(),
                    offset: line_start,
                    len: bytes.len() as u64,
                }
            } else {
                Line::Text { number, bytes }
            }
        };
        self.pending.clear();
        self.offset += consumed as u64;
        self.pos += consumed;
        Some(line)
    }

    /// The next chunk to split (the one before is split to its end).
    fn push(&mut self, chunk: Bytes) {
        self.chunk = chunk;
        self.pos = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(eof: bool) -> OpenFile {
        OpenFile {
            display: "f.jsonl".into(),
            chunks: stream::empty().boxed(),
            chunk: Bytes::new(),
            pos: 0,
            pending: Vec::new(),
            offset: 0,
            line: 1,
            eof,
            oversized: None,
            carried_cr: false,
        }
    }

    /// Every line of `text` fed in chunks of `size` bytes, as (number, text or
    /// (prefix, offset, length) of an oversized line).
    fn lines(text: &[u8], size: usize, max: usize) -> Vec<String> {
        let mut f = open(false);
        let mut out = Vec::new();
        let mut chunks = text.chunks(size);
        loop {
            while let Some(l) = f.split_line(max) {
                out.push(match l {
                    Line::Text { number, bytes } => {
                        format!("{number}:{}", String::from_utf8_lossy(&bytes))
                    }
                    Line::Oversized {
                        number,
                        prefix,
                        offset,
                        len,
                    } => format!(
                        "{number}:oversized {} at {offset}, {len} bytes",
                        String::from_utf8_lossy(&prefix)
                    ),
                });
            }
            if f.eof {
                return out;
            }
            match chunks.next() {
                Some(c) => f.push(Bytes::copy_from_slice(c)),
                None => f.eof = true,
            }
        }
    }

    #[test]
    fn lines_are_the_same_whatever_the_chunks() {
        let text = b"{\"a\":1}\r\n\n{\"b\":\"long long line\"}\r\nxy\r\n\r\n{\"c\":3}";
        let want = lines(text, text.len(), 12);
        assert_eq!(
            want,
            [
                "1:{\"a\":1}",
                "2:",
                "3:oversized {\"b\":\"long long line\"} at 10, 22 bytes",
                "4:xy",
                "5:",
                "6:{\"c\":3}",
            ]
        );
        for size in 1..text.len() {
            assert_eq!(lines(text, size, 12), want, "chunks of {size} bytes");
        }
        // A last line that ends in a newline leaves no empty line after it.
        assert_eq!(lines(b"a\nb\n", 1, 12), ["1:a", "2:b"]);
        // An oversized last line without a newline.
        for size in 1..6 {
            assert_eq!(
                lines(b"a\nbbbbbbbbbbbbbbbbbbbb", size, 5),
                ["1:a", "2:oversized bbbbbbbbbbbbbbbbbbbb at 2, 20 bytes"],
                "chunks of {size} bytes"
            );
        }
    }
}
