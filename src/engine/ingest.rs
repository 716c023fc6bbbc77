//! `ingest`: every input table of a session written as Parquet in the same project
//! layout, so `--data OUT` reads the result.
//!
//! Rows keep input order (files in path order, lines in file order), and the writer
//! settings are fixed, so the same input gives the same bytes. Each output appears only
//! when complete: written under a temporary name, then renamed.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, AsArray, BooleanArray};
use arrow::compute::{cast, filter_record_batch};
use arrow::datatypes::DataType;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::engine::session::{Session, TableFormat, TableSource};
use crate::error::{Error, Result};
use crate::input::jsonl::{Progress, read_jsonl};
use crate::output::{ParquetFile, temp_name};

/// What `ingest` wrote for one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ingested {
    pub table: String,
    pub files_read: usize,
    pub rows: u64,
    /// Path written, relative to the output folder.
    pub output: String,
}

#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    /// Partition every table that has this top-level column into `COL=value/` folders.
    pub partition_by: Option<String>,
}

/// Converts every table the session found into Parquet under `out`.
pub async fn ingest(
    session: &Session,
    out: &Path,
    opts: &IngestOptions,
    progress: Option<Progress>,
) -> Result<Vec<Ingested>> {
    let mut done = Vec::new();
    for source in &session.sources {
        let Some(format) = source.format else {
            continue;
        };
        let stream = match format {
            TableFormat::Jsonl => read_jsonl(
                source.spec,
                source.source_files(),
                session.read.clone(),
                session.rejects.clone(),
                progress.clone(),
            ),
            TableFormat::Parquet => parquet_in_order(session, source).await?,
        };
        let stream = read_ahead(stream);
        let partition = opts
            .partition_by
            .as_deref()
            .filter(|c| source.spec.col(c).is_some());
        let rel = source.spec.location;
        let (rows, output) = match partition {
            None => (
                write_single(stream, &out.join(format!("{rel}.parquet"))).await?,
                format!("{rel}.parquet"),
            ),
            Some(col) => (
                write_partitioned(stream, &out.join(rel), col).await?,
                format!("{rel}/{col}=*/part-0.parquet"),
            ),
        };
        // The other layout of the same table, from an earlier run, would now be ambiguous.
        remove_other_layout(out, rel, partition.is_some())?;
        done.push(Ingested {
            table: source.spec.name.to_string(),
            files_read: source.files.len(),
            rows,
            output,
        });
    }
    Ok(done)
}

/// A Parquet table's rows in file order: partitions are read one after another.
async fn parquet_in_order(
    session: &Session,
    source: &TableSource,
) -> Result<SendableRecordBatchStream> {
    let df = session.ctx.table(source.spec.name).await?;
    let parts = df.execute_stream_partitioned().await?;
    let schema = source.spec.schema.clone();
    let chained = futures::stream::iter(parts).flatten();
    Ok(Box::pin(
        datafusion::physical_plan::stream::RecordBatchStreamAdapter::new(schema, chained),
    ))
}

/// The stream read on a task of its own, so that the next batches are read and checked
/// while this one is encoded to Parquet (the two took turns on one core before).
fn read_ahead(mut stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    tokio::spawn(async move {
        while let Some(b) = stream.next().await {
            if tx.send(b).await.is_err() {
                break;
            }
        }
    });
    let batches =
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (b, rx)) });
    Box::pin(datafusion::physical_plan::stream::RecordBatchStreamAdapter::new(schema, batches))
}

async fn write_single(mut stream: SendableRecordBatchStream, path: &Path) -> Result<u64> {
    let mut file = ParquetFile::create(path, stream.schema())?;
    while let Some(batch) = stream.next().await {
        file.write(&batch.map_err(Error::from)?)?;
    }
    let rows = file.rows;
    file.finish()?;
    Ok(rows)
}

/// Characters kept as they are in a partition folder name; the rest are %-encoded.
const PART_ESCAPE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');

async fn write_partitioned(
    mut stream: SendableRecordBatchStream,
    dir: &Path,
    col: &str,
) -> Result<u64> {
    let tmp = temp_name(dir);
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| Error::io(tmp.display(), e))?;
    }
    let schema = stream.schema();
    let idx = schema.index_of(col)?;
    let mut writers: BTreeMap<String, ParquetFile> = BTreeMap::new();
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(Error::from)?;
        rows += batch.num_rows() as u64;
        let keys = cast(batch.column(idx), &DataType::Utf8)?;
        let keys = keys.as_string::<i32>();
        let mut values: Vec<Option<&str>> = (0..keys.len())
            .map(|i| keys.is_valid(i).then(|| keys.value(i)))
            .collect();
        values.sort();
        values.dedup();
        for v in values {
            let mask: BooleanArray = (0..keys.len())
                .map(|i| Some(keys.is_valid(i).then(|| keys.value(i)) == v))
                .collect();
            let part = filter_record_batch(&batch, &mask)?;
            let name = match v {
                Some(s) => utf8_percent_encode(s, PART_ESCAPE).to_string(),
                None => "__HIVE_DEFAULT_PARTITION__".to_string(),
            };
            let w = match writers.get_mut(&name) {
                Some(w) => w,
                None => {
                    let path = tmp.join(format!("{col}={name}")).join("part-0.parquet");
                    writers
                        .entry(name)
                        .or_insert(ParquetFile::create(&path, schema.clone())?)
                }
            };
            w.write(&part)?;
        }
    }
    std::fs::create_dir_all(&tmp).map_err(|e| Error::io(tmp.display(), e))?;
    for (_, w) in writers {
        w.finish()?;
    }
    replace_dir(&tmp, dir)?;
    Ok(rows)
}

/// Puts `new` where `target` is, replacing it (output::set keeps the earlier one until
/// the verb ends well).
fn replace_dir(new: &Path, target: &Path) -> Result<()> {
    crate::output::set::replace(new, target).map_err(|e| Error::io(target.display(), e))
}

fn remove_other_layout(out: &Path, rel: &str, partitioned: bool) -> Result<()> {
    let other = if partitioned {
        out.join(format!("{rel}.parquet"))
    } else {
        out.join(rel)
    };
    crate::output::set::remove(&other).map_err(|e| Error::io(other.display(), e))
}

pub fn progress_bar(total: u64) -> (indicatif::ProgressBar, Progress) {
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("static template"),
    );
    let b = bar.clone();
    (bar, Arc::new(move |n| b.inc(n)))
}
