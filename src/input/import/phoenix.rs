//! Arize Phoenix's span exports, in each shape its client and REST API give (the shapes
//! are those of `arize-phoenix-client`'s generated types):
//! - `client.spans.get_spans()` / `GET /v1/projects/{id}/spans`: spans with `context`
//!   {trace_id, span_id}, `parent_id`, a top-level `span_kind`, `start_time`/`end_time`
//!   (ISO 8601), `status_code`, `attributes` (flat dotted keys or nested objects); as JSON
//!   lines, a JSON array, or the REST page `{"data": [...], "next_cursor"}`;
//! - `GET /v1/projects/{id}/spans/otlpv1`: the page of OTLP spans with snake_case keys
//!   (`trace_id`, `start_time_unix_nano`, `string_value`, …);
//! - the spans dataframe (`get_spans_dataframe`) saved as JSON records or lines: flat
//!   columns `context.trace_id`, `attributes.llm.model_name`, times as ISO text or as
//!   pandas' epoch milliseconds.
//!
//! - a saved trace dataset (`phoenix.trace.TraceDataset(df).save()`): that dataframe as
//!   Parquet, nested attribute columns as Parquet lists and structs.
//!
//! A file may also hold OTLP exports (`resourceSpans`): those are read as `otlp` does.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::spans::{Event, Span, SpanKind};
use super::{Input, TraceFile, bad, documents, parse_time};
use crate::error::Result;

pub fn read(f: &TraceFile, out: &mut Vec<Span>) -> Result<()> {
    super::held(f, out, read_from)
}

/// Reads an input a document (a JSON line) at a time, handing each one's spans to
/// `each`; a saved trace dataset (Parquet) is read whole.
pub fn read_from(input: Input, each: &mut dyn FnMut(Vec<Span>) -> Result<()>) -> Result<()> {
    let display = input.display();
    if input.first.is_none() {
        return Ok(());
    }
    if !matches!(input.first, Some(b'{' | b'[')) {
        let f = TraceFile {
            display: display.to_string(),
            bytes: input.rest()?,
        };
        if f.bytes.starts_with(b"PAR1") {
            let mut spans = Vec::new();
            for (row, item) in parquet_rows(&f)?.into_iter().enumerate() {
                spans.push(span(&f.display, row + 1, item)?);
            }
            return each(spans);
        }
        // Not JSON either: `documents` names where.
        documents(&f)?;
        return Ok(());
    }
    input.documents(&mut |line, doc| {
        let items = match doc {
            Value::Array(a) => a,
            Value::Object(mut o) if o.get("data").is_some_and(Value::is_array) => {
                match o.remove("data") {
                    Some(Value::Array(a)) => a,
                    _ => Vec::new(),
                }
            }
            Value::Object(ref o) if o.contains_key("resourceSpans") => {
                return super::otlp::read_json(&format!("{display}:{line}"), 1, doc, each);
            }
            other => vec![other],
        };
        let spans = items
            .into_iter()
            .map(|item| span(display, line, item))
            .collect::<Result<Vec<Span>>>()?;
        each(spans)
    })
}

fn span(file: &str, line: usize, item: Value) -> Result<Span> {
    let Value::Object(o) = item else {
        return Err(bad(file, line, 1, "not a span (a JSON object)"));
    };
    if o.contains_key("span_id") && o.contains_key("trace_id") {
        return otlp_snake(file, line, o);
    }
    let has_flat = o.contains_key("context.trace_id");
    if !o.contains_key("context") && !has_flat {
        return Err(bad(
            file,
            line,
            1,
            "not a Phoenix span: no \"context\" (get_spans), \"context.trace_id\" (the spans \
             dataframe) or \"trace_id\" (spans/otlpv1)",
        ));
    }
    let get = |k: &str| -> Option<&Value> {
        o.get(k).filter(|v| !v.is_null()).or_else(|| {
            let (a, b) = k.split_once('.')?;
            o.get(a)?.get(b).filter(|v| !v.is_null())
        })
    };
    let s = |k: &str| get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut attrs = Map::new();
    if let Some(a) = o.get("attributes") {
        flatten("", a, &mut attrs);
    }
    // The dataframe splits attributes at their first dot only: `attributes.gen_ai`
    // holds {"operation": {"name": …}}, `attributes.llm.output_messages` a list.
    for (k, v) in &o {
        if let Some(key) = k.strip_prefix("attributes.")
            && !v.is_null()
        {
            flatten(key, v, &mut attrs);
        }
    }
    let kind = s("span_kind");
    if !kind.is_empty() {
        attrs
            .entry("openinference.span.kind".to_string())
            .or_insert(Value::String(kind.to_ascii_uppercase()));
    }
    let status = s("status_code");
    let error = status.eq_ignore_ascii_case("ERROR");
    Ok(Span {
        trace_id: s("context.trace_id"),
        span_id: s("context.span_id"),
        parent_id: s("parent_id"),
        name: s("name"),
        kind: SpanKind::Unspecified,
        start: get("start_time").and_then(time),
        end: get("end_time").and_then(time),
        error,
        error_message: Some(s("status_message")).filter(|m| error && !m.is_empty()),
        attrs,
        events: get("events")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let name = e.get("name")?.as_str()?.to_string();
                let mut attrs = Map::new();
                if let Some(a) = e.get("attributes") {
                    flatten("", a, &mut attrs);
                }
                Some(Event {
                    time: e.get("timestamp").and_then(time),
                    name,
                    attrs,
                })
            })
            .filter(|e| e.name != "exception")
            .collect(),
    })
}

/// The rows of a Parquet spans dataframe as JSON objects, the shape pandas' JSON records
/// have: nulls left out (a struct holds every key any row had), times as epoch
/// nanoseconds.
fn parquet_rows(f: &TraceFile) -> Result<Vec<Value>> {
    use arrow::datatypes::{DataType, TimeUnit};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let fail = |e: &dyn std::fmt::Display| {
        crate::error::Error::Input(format!("{}: not a readable Parquet file: {e}", f.display))
    };
    let bytes = bytes::Bytes::from(f.bytes.clone());
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .map_err(|e| fail(&e))?
        .build()
        .map_err(|e| fail(&e))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| fail(&e))?;
        // Times as numbers: the JSON writer's text for a timestamp has no offset.
        let columns = batch
            .columns()
            .iter()
            .map(|c| match c.data_type() {
                DataType::Timestamp(_, _) => arrow::compute::cast(
                    &arrow::compute::cast(c, &DataType::Timestamp(TimeUnit::Nanosecond, None))?,
                    &DataType::Int64,
                ),
                _ => Ok(c.clone()),
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| fail(&e))?;
        let fields: Vec<_> = batch
            .schema()
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| arrow::datatypes::Field::new(f.name(), c.data_type().clone(), true))
            .collect();
        let batch = arrow::record_batch::RecordBatch::try_new(
            std::sync::Arc::new(arrow::datatypes::Schema::new(fields)),
            columns,
        )
        .map_err(|e| fail(&e))?;
        let mut w = arrow::json::ArrayWriter::new(Vec::new());
        w.write(&batch).map_err(|e| fail(&e))?;
        w.finish().map_err(|e| fail(&e))?;
        let text = w.into_inner();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(&text).map_err(|e| fail(&e))? {
            Value::Array(a) => rows.extend(a),
            _ => return Err(fail(&"rows that are not objects")),
        }
    }
    Ok(rows)
}

/// ISO text, or a number: pandas writes epoch milliseconds; nanoseconds, microseconds and
/// seconds are told apart by size.
fn time(v: &Value) -> Option<DateTime<Utc>> {
    let Some(n) = v.as_f64() else {
        return parse_time(v);
    };
    let nanos = match n.abs() {
        x if x >= 1e17 => n,
        x if x >= 1e14 => n * 1e3,
        x if x >= 1e11 => n * 1e6,
        _ => n * 1e9,
    };
    Some(DateTime::from_timestamp_nanos(nanos as i64))
}

/// Nested attribute objects (and lists of objects, as OpenInference's messages) flattened
/// to dotted keys: `{"llm": {"input_messages": [{"message": …}]}}` →
/// `llm.input_messages.0.message.…`.
fn flatten(prefix: &str, v: &Value, out: &mut Map<String, Value>) {
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                flatten(&key(k), x, out);
            }
        }
        Value::Array(a)
            if !prefix.is_empty() && a.iter().all(Value::is_object) && !a.is_empty() =>
        {
            for (i, x) in a.iter().enumerate() {
                flatten(&key(&i.to_string()), x, out);
            }
        }
        other if !prefix.is_empty() => {
            out.insert(prefix.to_string(), other.clone());
        }
        _ => {}
    }
}

/// A span of Phoenix's `spans/otlpv1` page: OTLP with snake_case keys, made into OTLP
/// JSON and read by the OTLP model.
fn otlp_snake(file: &str, line: usize, o: Map<String, Value>) -> Result<Span> {
    let mut v = Value::Object(o);
    camel(&mut v);
    let doc = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [v]}]}]});
    let mut spans = Vec::new();
    super::otlp::read_json(&format!("{file}:{line}"), 1, doc, &mut |s| {
        spans.extend(s);
        Ok(())
    })?;
    spans
        .pop()
        .ok_or_else(|| bad(file, line, 1, "an OTLP span that holds no span"))
}

/// snake_case field names to OTLP JSON's camelCase; nulls (Phoenix writes every absent
/// field as null) dropped, as OTLP JSON leaves them out.
fn camel(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let old = std::mem::take(o);
            for (k, mut x) in old.into_iter().filter(|(_, x)| !x.is_null()) {
                // Attribute keys are data, not field names: leave them.
                if k != "key" {
                    camel(&mut x);
                }
                let mut name = String::new();
                let mut up = false;
                for c in k.chars() {
                    if c == '_' && k != "key" {
                        up = true;
                    } else if up {
                        name.push(c.to_ascii_uppercase());
                        up = false;
                    } else {
                        name.push(c);
                    }
                }
                o.insert(name, x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(camel),
        _ => {}
    }
}
