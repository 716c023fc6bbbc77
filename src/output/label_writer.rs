//! Writing labels as they arrive: `labels.jsonl` and `labels.parquet` side by side, each
//! under a temporary name until `finish`, so a million tasks never sit in memory at once.
//! The JSON lines are encoded on a thread of their own: after the last chunk the merge
//! and the Parquet encoding keep one core busy and the JSON encoding (half of the time
//! the writing took at 1M tasks, benches/RESULTS.md) the other.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{Error, Result};
use crate::output::{ParquetFile, Rebatcher, temp_name};

/// `labels.jsonl` and `labels.parquet` in a folder, written batch by batch. Dropped
/// unfinished (an error on the way), it removes both temporary files.
pub struct LabelWriter {
    jsonl: Option<JsonLines>,
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
            jsonl: Some(JsonLines::start(file, jsonl_tmp.clone())?),
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
        let done = self
            .jsonl
            .take()
            .expect("finished once")
            .finish()
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
        if let Some(jsonl) = self.jsonl.take() {
            let _ = jsonl.finish();
            let _ = std::fs::remove_file(&self.jsonl_tmp);
        }
    }
}

/// Batches this many ahead of the JSON lines' thread at most: a bound on what waits.
const JSON_QUEUE: usize = 4;

/// JSON lines written by a thread of their own, batch by batch, in the order sent.
struct JsonLines {
    send: Option<SyncSender<RecordBatch>>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl JsonLines {
    fn start(file: std::fs::File, path: PathBuf) -> Result<Self> {
        let (send, batches) = sync_channel::<RecordBatch>(JSON_QUEUE);
        let thread = std::thread::Builder::new()
            .name("labels.jsonl".into())
            .spawn(move || {
                let mut w = arrow::json::LineDelimitedWriter::new(BufWriter::new(file));
                for b in batches {
                    w.write(&b)?;
                }
                w.finish()?;
                w.into_inner()
                    .flush()
                    .map_err(|e| Error::io(path.display(), e))
            })
            .map_err(|e| Error::Bug(format!("no thread to write labels.jsonl: {e}")))?;
        Ok(Self {
            send: Some(send),
            thread: Some(thread),
        })
    }

    /// Hands a batch to the thread; its error, if it has stopped on one.
    fn write(&mut self, b: &RecordBatch) -> Result<()> {
        let Some(send) = self.send.as_ref() else {
            return Err(Error::Bug(
                "labels.jsonl written after its thread stopped on an error".into(),
            ));
        };
        if send.send(b.clone()).is_err() {
            // The thread ended early: only an error ends it before `finish`.
            return Err(self.join().err().unwrap_or_else(|| {
                Error::Bug("the labels.jsonl thread ended before its last batch".into())
            }));
        }
        Ok(())
    }

    /// Waits for every batch sent to be written and the file flushed.
    fn finish(mut self) -> Result<()> {
        self.join()
    }

    fn join(&mut self) -> Result<()> {
        self.send = None;
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| Error::Bug("the labels.jsonl thread panicked".into()))?,
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::JsonLines;

    /// A write the JSON lines' thread cannot do is the caller's error, not a lost file:
    /// /dev/full refuses every write with "no space left".
    #[test]
    fn the_threads_write_error_reaches_the_caller() {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Utf8, false)]));
        let text = "x".repeat(1 << 16);
        let b = RecordBatch::try_new(
            schema,
            vec![Arc::new(StringArray::from(vec![text.as_str(); 64]))],
        )
        .unwrap();
        let mut w = JsonLines::start(full, "/dev/full".into()).unwrap();
        // Written until the thread has failed (its queue holds a few batches), or at the end.
        let err = (0..64)
            .find_map(|_| w.write(&b).err())
            .or_else(|| w.finish().err())
            .expect("a write to /dev/full fails");
        // Not a panic if the caller writes again.
        let mut w = JsonLines::start(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
            "/dev/full".into(),
        )
        .unwrap();
        let again = (0..64).filter_map(|_| w.write(&b).err()).count();
        assert!(again > 0);
        let text = err.to_string();
        assert!(text.contains("No space left"), "{text}");
    }
}
