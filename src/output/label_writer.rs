//! Writing labels as they arrive: `labels.jsonl` and `labels.parquet` side by side, each
//! under a temporary name until `finish`, so a million tasks never sit in memory at once.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{Error, Result};
use crate::output::{ParquetFile, Rebatcher, temp_name};

/// `labels.jsonl` and `labels.parquet` in a folder, written batch by batch. Dropped
/// unfinished (an error on the way), it removes both temporary files.
pub struct LabelWriter {
    jsonl: Option<arrow::json::LineDelimitedWriter<BufWriter<std::fs::File>>>,
    jsonl_tmp: PathBuf,
    jsonl_path: PathBuf,
    parquet: Option<ParquetFile>,
    rebatch: Rebatcher,
    schema: SchemaRef,
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
            jsonl: Some(arrow::json::LineDelimitedWriter::new(BufWriter::new(file))),
            jsonl_tmp,
            jsonl_path,
            parquet: Some(parquet),
            rebatch: Rebatcher::new(schema.clone()),
            schema,
            rows: 0,
        })
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    pub fn write(&mut self, b: &RecordBatch) -> Result<()> {
        self.rows += b.num_rows() as u64;
        self.jsonl.as_mut().expect("open until finish").write(b)?;
        let parquet = self.parquet.as_mut().expect("open until finish");
        for full in self.rebatch.push(b)? {
            parquet.write(&full)?;
        }
        Ok(())
    }

    /// Closes both files and renames them into place.
    pub fn finish(mut self) -> Result<()> {
        let mut parquet = self.parquet.take().expect("finished once");
        if let Some(last) = self.rebatch.finish()? {
            parquet.write(&last)?;
        }
        let mut jsonl = self.jsonl.take().expect("finished once");
        let done = jsonl
            .finish()
            .map_err(Error::from)
            .and_then(|_| {
                jsonl
                    .into_inner()
                    .flush()
                    .map_err(|e| Error::io(self.jsonl_tmp.display(), e))
            })
            .and_then(|_| {
                crate::output::set::replace(&self.jsonl_tmp, &self.jsonl_path)
                    .map_err(|e| Error::io(self.jsonl_path.display(), e))
            });
        if done.is_err() {
            let _ = std::fs::remove_file(&self.jsonl_tmp);
        }
        done?;
        // Parquet last: a labels.parquet in place means labels.jsonl is too.
        parquet.finish()?;
        Ok(())
    }
}

impl Drop for LabelWriter {
    fn drop(&mut self) {
        if self.jsonl.take().is_some() {
            let _ = std::fs::remove_file(&self.jsonl_tmp);
        }
    }
}
