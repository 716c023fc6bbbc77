//! Writing labels as they arrive: `labels.jsonl` and `labels.parquet` side by side, each
//! under a temporary name until `finish`, so a million tasks never sit in memory at once.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{Error, Result};
use crate::output::{ParquetFile, temp_name};

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
    pub fn finish(mut self) -> Result<Option<RecordBatch>> {
        (self.rows > 0).then(|| self.take()).transpose()
    }

    fn take(&mut self) -> Result<RecordBatch> {
        let b = arrow::compute::concat_batches(&self.schema, &self.pending)?;
        self.pending.clear();
        self.rows = 0;
        Ok(b)
    }
}

/// `labels.jsonl` and `labels.parquet` in a folder, written batch by batch.
pub struct LabelWriter {
    jsonl: arrow::json::LineDelimitedWriter<BufWriter<std::fs::File>>,
    jsonl_tmp: PathBuf,
    jsonl_path: PathBuf,
    parquet: ParquetFile,
    rebatch: Rebatcher,
    pub rows: u64,
}

impl LabelWriter {
    pub fn create(dir: &Path, schema: SchemaRef) -> Result<Self> {
        let jsonl_path = dir.join("labels.jsonl");
        let parquet = ParquetFile::create(&dir.join("labels.parquet"), schema.clone())?;
        let jsonl_tmp = temp_name(&jsonl_path);
        let file =
            std::fs::File::create(&jsonl_tmp).map_err(|e| Error::io(jsonl_tmp.display(), e))?;
        Ok(Self {
            jsonl: arrow::json::LineDelimitedWriter::new(BufWriter::new(file)),
            jsonl_tmp,
            jsonl_path,
            parquet,
            rebatch: Rebatcher::new(schema),
            rows: 0,
        })
    }

    pub fn write(&mut self, b: &RecordBatch) -> Result<()> {
        self.rows += b.num_rows() as u64;
        self.jsonl.write(b)?;
        for full in self.rebatch.push(b)? {
            self.parquet.write(&full)?;
        }
        Ok(())
    }

    /// Closes both files and renames them into place.
    pub fn finish(mut self) -> Result<()> {
        if let Some(last) = self.rebatch.finish()? {
            self.parquet.write(&last)?;
        }
        self.parquet.finish()?;
        self.jsonl.finish()?;
        let mut file = self.jsonl.into_inner();
        file.flush()
            .map_err(|e| Error::io(self.jsonl_tmp.display(), e))?;
        std::fs::rename(&self.jsonl_tmp, &self.jsonl_path)
            .map_err(|e| Error::io(self.jsonl_path.display(), e))?;
        Ok(())
    }
}
