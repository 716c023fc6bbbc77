//! A query's rows, in the schema its plan declares, as batches or as JSON objects.

use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, SchemaRef};
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use serde_json::Value;

use crate::error::{Error, Result};

/// Runs a query and returns its rows in the schema the plan declares. Some DataFusion
/// functions hand back view types (`Utf8View`) where the plan says `Utf8`; such columns
/// are cast, so every batch matches the declared schema (Parquet writers insist).
pub async fn collect(ctx: &SessionContext, sql: &str) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let df = ctx.sql(sql).await?;
    let schema = plain_schema(df.schema().as_arrow());
    let batches = df.collect().await?;
    let batches = batches
        .into_iter()
        .map(|b| conform(&schema, b))
        .collect::<Result<Vec<_>>>()?;
    Ok((schema, batches))
}

/// The schema with view types (`Utf8View`) replaced by their plain forms: outputs carry
/// plain string types, whatever the plan used inside, so that every reader of our Parquet
/// sees the same, documented schema.
pub fn plain_schema(declared: &arrow::datatypes::Schema) -> SchemaRef {
    Arc::new(arrow::datatypes::Schema::new(
        declared
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
            .collect::<Vec<_>>(),
    ))
}

/// The type with view types replaced by their plain forms, nested ones too.
fn plain(t: &DataType) -> DataType {
    match t {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        DataType::List(f) => DataType::List(Arc::new(
            f.as_ref().clone().with_data_type(plain(f.data_type())),
        )),
        DataType::LargeList(f) => DataType::LargeList(Arc::new(
            f.as_ref().clone().with_data_type(plain(f.data_type())),
        )),
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The batch in `schema`'s types (casting columns whose types differ).
pub fn conform(schema: &SchemaRef, batch: RecordBatch) -> Result<RecordBatch> {
    if batch.schema().fields() == schema.fields() {
        return Ok(batch.with_schema(schema.clone())?);
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c.clone())
            } else {
                arrow::compute::cast(c, f.data_type())
            }
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// Batches as JSON objects, one per row (arrow's JSON writer: NULL fields left out).
pub fn rows_as_json(batches: &[RecordBatch]) -> Result<Vec<serde_json::Map<String, Value>>> {
    let mut buf = Vec::new();
    {
        let mut w = arrow::json::LineDelimitedWriter::new(&mut buf);
        for b in batches {
            w.write(b)?;
        }
        w.finish()?;
    }
    let text = String::from_utf8(buf).map_err(|e| Error::Bug(e.to_string()))?;
    text.lines()
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Error::Bug("report row is not an object".into())),
        })
        .collect()
}

/// Calls `f` with each row of a query as a JSON object, a batch at a time.
pub async fn for_each_row(
    ctx: &SessionContext,
    sql: &str,
    mut f: impl FnMut(&serde_json::Map<String, Value>),
) -> Result<()> {
    let mut stream = ctx.sql(sql).await?.execute_stream().await?;
    while let Some(b) = stream.next().await {
        for r in rows_as_json(&[b?])? {
            f(&r);
        }
    }
    Ok(())
}

/// Number of rows in a set of batches.
pub fn row_count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// Distinct values of a string column.
pub fn distinct_strings(batches: &[RecordBatch], column: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in batches {
        let Ok(i) = b.schema().index_of(column) else {
            continue;
        };
        let Ok(col) = arrow::compute::cast(b.column(i), &DataType::Utf8) else {
            continue;
        };
        let col = col.as_string::<i32>();
        for j in 0..col.len() {
            if col.is_valid(j) {
                let v = col.value(j).to_string();
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out.sort();
    out
}
