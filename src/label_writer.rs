//! Writing labels as they arrive: `labels.jsonl` and `labels.parquet` side by side, each
//! under a temporary name until `finish`, so a million tasks never sit in memory at once.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{Error, Result};
use crate::output::{ParquetFile, Rebatcher, temp_name};

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
