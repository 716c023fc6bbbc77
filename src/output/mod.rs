//! Writing results: atomic files (temporary name in the same folder, then rename) and the
//! printed forms of a query result.
//!
//! A half-written output is never visible under its final name. Parquet is written with
//! fixed writer properties, so the same batches give the same bytes.

pub mod annotate;
pub mod docs;
pub mod html;
pub mod label_writer;
pub mod remote;
pub mod set;
pub mod stop;
pub mod text;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;

use crate::error::{Error, Result};

/// A name beside `path` that listings skip (leading `.`) and that no other process uses.
/// It is remembered, so that an interrupted run can remove what it left (`remove_temporaries`).
pub fn temp_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    track_temporary(&tmp);
    tmp
}

/// Temporary files and folders this process made (most are renamed into place, or removed,
/// long before the end; removing one that is gone is a no-op).
static TEMPORARIES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Remembers a temporary file or folder for `remove_temporaries`.
pub fn track_temporary(path: &Path) {
    let mut t = TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner());
    if !t.iter().any(|p| p == path) {
        t.push(path.to_path_buf());
    }
}

/// Removes every temporary file and folder this process made that is still there: an
/// interrupted run (SIGINT, SIGTERM) leaves its earlier outputs and no half files behind.
pub fn remove_temporaries() -> usize {
    let t = TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner());
    let mut removed = 0;
    for p in t.iter() {
        let gone = if p.is_dir() {
            std::fs::remove_dir_all(p)
        } else {
            std::fs::remove_file(p)
        };
        removed += usize::from(gone.is_ok());
    }
    removed
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = temp_name(path);
    // A full disk or a refused rename leaves no half file behind.
    let done = std::fs::write(&tmp, bytes).and_then(|()| set::replace(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

pub fn writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_created_by("groundcheck".into())
        .build()
}

/// A Parquet file being written under a temporary name; `finish` renames it into place.
/// Dropped unfinished (an error on the way), it removes the temporary file.
///
/// The bytes are those `ArrowWriter` writes with the same properties (same row groups,
/// pages and metadata), but each batch's columns are encoded on two threads: encoding
/// and compressing took one core while the rest of `ingest` waited on it.
pub struct ParquetFile {
    path: PathBuf,
    tmp: PathBuf,
    writer: Option<SerializedFileWriter<std::fs::File>>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// The row group being written: its column writers and rows so far.
    group: Option<(Vec<ArrowColumnWriter>, usize)>,
    max_rows: usize,
    pub rows: u64,
}

impl ParquetFile {
    pub fn create(path: &Path, schema: SchemaRef) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), e))?;
        }
        let tmp = temp_name(path);
        let file = std::fs::File::create(&tmp).map_err(|e| Error::io(tmp.display(), e))?;
        let props = writer_properties();
        let max_rows = props
            .max_row_group_row_count()
            .unwrap_or(parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT);
        // ArrowWriter sets up the file as it would write it (schema, Arrow metadata).
        let (writer, factory) =
            ArrowWriter::try_new(file, schema.clone(), Some(props))?.into_serialized_writer()?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            writer: Some(writer),
            factory,
            schema,
            group: None,
            max_rows: max_rows.max(1),
            rows: 0,
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let (writers, rows) = match &mut self.group {
                Some(g) => g,
                None => {
                    let index = self
                        .writer
                        .as_ref()
                        .map_or(0, |w| w.flushed_row_groups().len());
                    self.group
                        .insert((self.factory.create_column_writers(index)?, 0))
                }
            };
            let take = (self.max_rows - *rows).min(batch.num_rows() - offset);
            encode(&self.schema, writers, &batch.slice(offset, take))?;
            *rows += take;
            offset += take;
            self.rows += take as u64;
            if *rows >= self.max_rows {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Closes the row group being written, if any, and appends it to the file.
    fn flush(&mut self) -> Result<()> {
        let Some((writers, _)) = self.group.take() else {
            return Ok(());
        };
        let chunks = in_parallel(writers, |w| w.close())?;
        let writer = self.writer.as_mut().expect("open until finish");
        let mut group = writer.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<PathBuf> {
        let done = self.flush().and_then(|()| {
            let writer = self.writer.take().expect("finished once");
            writer.close().map_err(Error::from)?;
            set::replace(&self.tmp, &self.path).map_err(|e| Error::io(self.path.display(), e))
        });
        if done.is_err() {
            self.writer = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
        done.map(|_| self.path.clone())
    }
}

/// One batch's columns written to their column writers, on two threads.
fn encode(
    schema: &SchemaRef,
    writers: &mut [ArrowColumnWriter],
    batch: &RecordBatch,
) -> Result<()> {
    let mut leaves = Vec::with_capacity(writers.len());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        leaves.extend(compute_leaves(field, column)?);
    }
    let jobs: Vec<_> = writers.iter_mut().zip(leaves).collect();
    in_parallel(jobs, |(w, leaf)| w.write(&leaf))?;
    Ok(())
}

/// `f` applied to every item, in order, the items split between this thread and one more
/// (alternately, so that neighbouring columns of similar size go to different threads).
fn in_parallel<T: Send, R: Send>(
    items: Vec<T>,
    f: impl Fn(T) -> parquet::errors::Result<R> + Sync,
) -> Result<Vec<R>> {
    if items.len() < 2 {
        return Ok(items
            .into_iter()
            .map(&f)
            .collect::<parquet::errors::Result<_>>()?);
    }
    let (mut odd, mut even) = (Vec::new(), Vec::new());
    for (i, item) in items.into_iter().enumerate() {
        if i % 2 == 0 {
            even.push(item)
        } else {
            odd.push(item)
        }
    }
    let (even, odd) = std::thread::scope(|scope| {
        let other = scope.spawn(|| odd.into_iter().map(&f).collect::<Vec<_>>());
        let mine: Vec<_> = even.into_iter().map(&f).collect();
        (mine, other.join())
    });
    let mut odd = odd
        .map_err(|_| Error::Bug("a Parquet column encoder panicked".into()))?
        .into_iter();
    // Back in the items' order: even, odd, even, ...
    Ok(even
        .into_iter()
        .flat_map(|e| std::iter::once(e).chain(odd.next()))
        .collect::<parquet::errors::Result<_>>()?)
}

impl Drop for ParquetFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Rows per batch handed to the Parquet writer.
pub const WRITE_ROWS: usize = 8192;

/// Cuts a stream of batches into batches of exactly `WRITE_ROWS` rows (the last one
/// shorter): Parquet's pages follow the batches written, and the same rows must give the
/// same bytes whatever batches they came in.
pub struct Rebatcher {
    schema: SchemaRef,
    pending: Vec<RecordBatch>,
    rows: usize,
    size: usize,
}

impl Rebatcher {
    pub fn new(schema: SchemaRef) -> Self {
        Self::with_rows(schema, WRITE_ROWS)
    }

    /// Batches of `size` rows instead.
    pub fn with_rows(schema: SchemaRef, size: usize) -> Self {
        Self {
            schema,
            pending: Vec::new(),
            rows: 0,
            size: size.max(1),
        }
    }

    /// The full batches this one completes.
    pub fn push(&mut self, b: &RecordBatch) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        let mut offset = 0;
        while offset < b.num_rows() {
            let take = (self.size - self.rows).min(b.num_rows() - offset);
            self.pending.push(b.slice(offset, take));
            offset += take;
            self.rows += take;
            if self.rows == self.size {
                out.push(self.take()?);
            }
        }
        Ok(out)
    }

    /// The rows left over, if any.
    pub fn finish(&mut self) -> Result<Option<RecordBatch>> {
        (self.rows > 0).then(|| self.take()).transpose()
    }

    fn take(&mut self) -> Result<RecordBatch> {
        let b = arrow::compute::concat_batches(&self.schema, &self.pending)?;
        self.pending.clear();
        self.rows = 0;
        Ok(b)
    }
}

/// How `groundcheck sql` prints a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ResultFormat {
    /// An aligned text table.
    Table,
    /// CSV with a header row (nested columns as JSON text).
    Csv,
    /// One JSON object per row.
    Json,
    /// A Parquet file (needs `--output`).
    Parquet,
}

/// Writes batches in a text format. Errors from a closed pipe surface as `BrokenPipe`
/// I/O errors for the caller to treat as a normal end.
pub fn print_batches(
    out: &mut dyn Write,
    format: ResultFormat,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<()> {
    // Arrow's writers turn I/O errors into text; watch the pipe underneath them.
    let mut watched = Watch {
        inner: out,
        broken: false,
    };
    let result = print_to(&mut watched, format, schema, batches);
    if watched.broken {
        return Err(Error::io("stdout", std::io::ErrorKind::BrokenPipe.into()));
    }
    result
}

struct Watch<'a> {
    inner: &'a mut dyn Write,
    broken: bool,
}

impl Write for Watch<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner
            .write(buf)
            .inspect_err(|e| self.broken |= e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner
            .flush()
            .inspect_err(|e| self.broken |= e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

fn print_to(
    out: &mut dyn Write,
    format: ResultFormat,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<()> {
    let io = |e: std::io::Error| Error::io("stdout", e);
    match format {
        ResultFormat::Table => {
            let text = arrow::util::pretty::pretty_format_batches(batches)?;
            writeln!(out, "{text}").map_err(io)?;
        }
        ResultFormat::Csv => {
            let batches = batches
                .iter()
                .map(nested_as_json)
                .collect::<Result<Vec<_>>>()?;
            let mut w = arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut *out);
            if batches.is_empty() {
                let names: Vec<_> = schema.fields().iter().map(|f| f.name().clone()).collect();
                drop(w);
                writeln!(out, "{}", names.join(",")).map_err(io)?;
            } else {
                for b in &batches {
                    w.write(b)?;
                }
            }
        }
        ResultFormat::Json => {
            let mut w = arrow::json::LineDelimitedWriter::new(&mut *out);
            for b in batches {
                w.write(b)?;
            }
            w.finish()?;
        }
        ResultFormat::Parquet => {
            return Err(Error::Config(
                "--format parquet writes a file: give --output FILE".into(),
            ));
        }
    }
    out.flush().map_err(io)
}

/// CSV cannot hold lists or structs: turn each nested column into its JSON text.
fn nested_as_json(batch: &RecordBatch) -> Result<RecordBatch> {
    use arrow::array::{ArrayRef, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    let nested = |t: &DataType| t.is_nested();
    if !batch
        .schema()
        .fields()
        .iter()
        .any(|f| nested(f.data_type()))
    {
        return Ok(batch.clone());
    }
    let mut fields = Vec::new();
    let mut cols: Vec<ArrayRef> = Vec::new();
    for (f, col) in batch.schema().fields().iter().zip(batch.columns()) {
        if !nested(f.data_type()) {
            fields.push(f.as_ref().clone());
            cols.push(col.clone());
            continue;
        }
        // One-column batch through the JSON writer, then strip the `{"name":` wrapper.
        let one = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new(
                "v",
                f.data_type().clone(),
                true,
            )])),
            vec![col.clone()],
        )?;
        let mut buf = Vec::new();
        let mut w = arrow::json::writer::LineDelimitedWriter::new(&mut buf);
        w.write(&one)?;
        w.finish()?;
        let text = String::from_utf8(buf).map_err(|e| Error::Bug(e.to_string()))?;
        let values: Vec<Option<String>> = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).ok()?;
                v.get("v").map(|x| x.to_string())
            })
            .collect();
        fields.push(Field::new(f.name(), DataType::Utf8, true));
        cols.push(Arc::new(StringArray::from(values)));
    }
    Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)?)
}

/// Writes the rows in batches of `WRITE_ROWS`, whatever batches they came in: Parquet's
/// page boundaries follow the batches written, and a cluster returns other batch sizes
/// than a local run (the same rows gave other bytes at 100k tasks).
pub fn write_parquet(path: &Path, schema: SchemaRef, batches: &[RecordBatch]) -> Result<()> {
    let mut file = ParquetFile::create(path, schema.clone())?;
    for b in rebatch(&schema, batches)? {
        file.write(&b)?;
    }
    file.finish()?;
    Ok(())
}

/// The same rows in batches of `WRITE_ROWS` (the last one shorter).
pub fn rebatch(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<Vec<RecordBatch>> {
    let mut r = Rebatcher::new(schema.clone());
    let mut out = Vec::new();
    for b in batches {
        out.extend(r.push(b)?);
    }
    out.extend(r.finish()?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::DataType;
    use arrow::datatypes::{Field, Schema};

    #[test]
    fn parquet_bytes_do_not_depend_on_the_batches() {
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let n = 20_000;
        let whole = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values(0..n as i64)),
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("row {i}")),
                )),
            ],
        )
        .unwrap();
        let ragged: Vec<RecordBatch> = [(0, 7), (7, 9000), (9007, 3), (9010, n - 9010)]
            .iter()
            .map(|&(o, l)| whole.slice(o, l))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.parquet"), dir.path().join("b.parquet"));
        write_parquet(&a, schema.clone(), &[whole]).unwrap();
        write_parquet(&b, schema, &ragged).unwrap();
        assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    }
}
