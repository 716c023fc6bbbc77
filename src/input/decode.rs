//! JSON lines decoded straight into Arrow columns, checked on the way.
//!
//! The fast path reads a line once with serde_json's streaming deserializer and appends
//! each known field to its column (no `serde_json::Value` per line, no second encoding for
//! an Arrow JSON decoder). It accepts exactly what `validate::check_line` accepts and
//! stores the same values; it does not explain refusals. When it refuses a line, the
//! columns are cut back to where the line began and `check_line` reads it again: that
//! gives the error (field path and reason), or, for the rare line only the slow path takes
//! (a key repeated in an object: the last one wins, as in `serde_json::Value`), the row.

use std::fmt;
use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Float64Array, Int64Array, ListArray, StringArray,
    StructArray, TimestampMicrosecondArray,
};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::DataType;
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use chrono::{DateTime, NaiveDate};
use serde::de::{self, DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::model::{Col, TableSpec, Ty};

/// The rows decoded so far of one table, column by column.
pub struct Columns {
    spec: &'static TableSpec,
    bufs: Vec<Buf>,
    rows: usize,
}

impl Columns {
    pub fn new(spec: &'static TableSpec) -> Self {
        Self {
            spec,
            bufs: spec.cols.iter().map(|c| Buf::new(&c.ty)).collect(),
            rows: 0,
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Appends the line's row if the fast path takes it; on `false` nothing was appended.
    pub fn push_line(&mut self, text: &str) -> bool {
        let mut de = serde_json::Deserializer::from_str(text);
        let ok = Obj {
            cols: &self.spec.cols,
            bufs: &mut self.bufs,
        }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .is_ok();
        self.settle(ok);
        ok
    }

    /// Appends a row already checked by `validate::check_line`.
    pub fn push_checked(&mut self, row: &Value) -> Result<(), String> {
        let res = push_object(&self.spec.cols, &mut self.bufs, row);
        self.settle(res.is_ok());
        res
    }

    /// Counts the row just appended, or cuts every column back to the rows before it.
    fn settle(&mut self, appended: bool) {
        if appended {
            self.rows += 1;
        } else {
            for b in &mut self.bufs {
                b.truncate(self.rows);
            }
        }
    }

    /// The text of a string column in the last row appended (`None` when null).
    pub fn last_str(&self, col: usize) -> Option<&str> {
        match &self.bufs[col] {
            Buf {
                valid,
                data: Data::Str(s),
            } if valid.last() == Some(&true) => Some(s.get(valid.len() - 1)),
            _ => None,
        }
    }

    /// The rows as one batch of the table's schema.
    pub fn finish(self) -> arrow::error::Result<RecordBatch> {
        let schema = self.spec.schema.clone();
        let arrays = self
            .bufs
            .into_iter()
            .zip(schema.fields().iter())
            .map(|(b, f)| b.finish(f.data_type()))
            .collect::<arrow::error::Result<Vec<_>>>()?;
        RecordBatch::try_new_with_options(
            schema,
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(self.rows)),
        )
    }
}

/// One column: which rows are valid, and their values (a placeholder under a null).
struct Buf {
    valid: Vec<bool>,
    data: Data,
}

enum Data {
    Str(Strs),
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    Micros(Vec<i64>),
    Days(Vec<i32>),
    List { offsets: Vec<i32>, item: Box<Buf> },
    Struct(Vec<Buf>),
}

/// Strings as Arrow keeps them: one byte buffer and where each value ends.
struct Strs {
    offsets: Vec<i32>,
    bytes: Vec<u8>,
}

impl Strs {
    fn get(&self, i: usize) -> &str {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        // Only whole `&str`s and JSON text written by serde_json are appended.
        std::str::from_utf8(&self.bytes[a..b]).unwrap_or_default()
    }

    /// Ends the value written since the last one; false when the column is past 2 GiB.
    fn close(&mut self) -> bool {
        match i32::try_from(self.bytes.len()) {
            Ok(end) => {
                self.offsets.push(end);
                true
            }
            Err(_) => false,
        }
    }
}

impl Buf {
    fn new(ty: &Ty) -> Self {
        let data = match ty {
            Ty::Str | Ty::Enum(_) | Ty::Json | Ty::Answer | Ty::Regex => Data::Str(Strs {
                offsets: vec![0],
                bytes: Vec::new(),
            }),
            Ty::Int => Data::Int(Vec::new()),
            Ty::Float => Data::Float(Vec::new()),
            Ty::Bool => Data::Bool(Vec::new()),
            Ty::Timestamp => Data::Micros(Vec::new()),
            Ty::Date => Data::Days(Vec::new()),
            Ty::List(item) => Data::List {
                offsets: vec![0],
                item: Box::new(Buf::new(item)),
            },
            Ty::Struct(cols) => Data::Struct(cols.iter().map(|c| Buf::new(&c.ty)).collect()),
        };
        Self {
            valid: Vec::new(),
            data,
        }
    }

    fn len(&self) -> usize {
        self.valid.len()
    }

    fn push_null(&mut self) {
        self.valid.push(false);
        match &mut self.data {
            Data::Str(s) => s.offsets.push(s.bytes.len() as i32),
            Data::Int(v) | Data::Micros(v) => v.push(0),
            Data::Float(v) => v.push(0.0),
            Data::Bool(v) => v.push(false),
            Data::Days(v) => v.push(0),
            Data::List { offsets, item } => offsets.push(item.len() as i32),
            // As Arrow's JSON reader leaves them: every child null under a null struct.
            Data::Struct(children) => children.iter_mut().for_each(Buf::push_null),
        }
    }

    /// Cuts the column back to its first `n` rows, and whatever was appended since for a
    /// row not finished (a list's items, a struct's fields, a string's bytes).
    fn truncate(&mut self, n: usize) {
        self.valid.truncate(n);
        match &mut self.data {
            Data::Str(s) => {
                s.offsets.truncate(n + 1);
                s.bytes.truncate(s.offsets[n] as usize);
            }
            Data::Int(v) | Data::Micros(v) => v.truncate(n),
            Data::Float(v) => v.truncate(n),
            Data::Bool(v) => v.truncate(n),
            Data::Days(v) => v.truncate(n),
            Data::List { offsets, item } => {
                offsets.truncate(n + 1);
                item.truncate(offsets[n] as usize);
            }
            Data::Struct(children) => children.iter_mut().for_each(|c| c.truncate(n)),
        }
    }

    fn finish(self, ty: &DataType) -> arrow::error::Result<ArrayRef> {
        let nulls = if self.valid.iter().all(|v| *v) {
            None
        } else {
            Some(NullBuffer::from(self.valid))
        };
        let internal = || arrow::error::ArrowError::SchemaError(format!("column buffer for {ty}"));
        Ok(match (self.data, ty) {
            (Data::Str(s), DataType::Utf8) => Arc::new(StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(s.offsets)),
                Buffer::from_vec(s.bytes),
                nulls,
            )?),
            (Data::Int(v), DataType::Int64) => Arc::new(Int64Array::new(v.into(), nulls)),
            (Data::Float(v), DataType::Float64) => Arc::new(Float64Array::new(v.into(), nulls)),
            (Data::Bool(v), DataType::Boolean) => {
                Arc::new(BooleanArray::new(v.into_iter().collect(), nulls))
            }
            (Data::Micros(v), DataType::Timestamp(_, tz)) => Arc::new(
                TimestampMicrosecondArray::new(v.into(), nulls).with_timezone_opt(tz.clone()),
            ),
            (Data::Days(v), DataType::Date32) => Arc::new(Date32Array::new(v.into(), nulls)),
            (Data::List { offsets, item }, DataType::List(field)) => {
                let values = item.finish(field.data_type())?;
                Arc::new(ListArray::try_new(
                    field.clone(),
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    values,
                    nulls,
                )?)
            }
            (Data::Struct(children), DataType::Struct(fields)) => {
                let arrays = children
                    .into_iter()
                    .zip(fields.iter())
                    .map(|(c, f)| c.finish(f.data_type()))
                    .collect::<arrow::error::Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new(fields.clone(), arrays, nulls)?)
            }
            _ => return Err(internal()),
        })
    }
}

/// The fast path's refusal: it carries no reason, `check_line` gives that.
#[derive(Debug)]
struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("refused")
    }
}

/// An object's known fields appended to their columns, the others null.
struct Obj<'a> {
    cols: &'a [Col],
    bufs: &'a mut [Buf],
}

impl<'de> DeserializeSeed<'de> for Obj<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Obj<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // Which columns this object set; a key seen twice goes to the slow path.
        let mut seen = vec![false; self.cols.len()];
        while let Some(key) = map.next_key_seed(Key(self.cols))? {
            let Some(i) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[i], true) {
                return Err(refused());
            }
            let col = &self.cols[i];
            map.next_value_seed(Val {
                ty: &col.ty,
                nullable: !col.required,
                buf: &mut self.bufs[i],
            })?;
        }
        for (i, col) in self.cols.iter().enumerate() {
            if !seen[i] {
                if col.required {
                    return Err(refused());
                }
                self.bufs[i].push_null();
            }
        }
        Ok(())
    }
}

/// A key: the index of the column it names, `None` for a key the table does not have.
struct Key<'a>(&'a [Col]);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<usize>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, k: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|c| c.name == k))
    }
}

/// The fast path's refusal as a deserializer error.
fn refused<E: de::Error>() -> E {
    E::custom(Refused)
}

/// One value appended to its column. `nullable`: a null is a null row (a column that is
/// not required) rather than a refusal (a required column, an item of a list).
struct Val<'a> {
    ty: &'a Ty,
    nullable: bool,
    buf: &'a mut Buf,
}

impl<'de> DeserializeSeed<'de> for Val<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        match self.ty {
            Ty::Json | Ty::Answer => {
                let Buf { valid, data } = self.buf;
                let Data::Str(s) = data else {
                    return Err(refused());
                };
                let top = match self.ty {
                    Ty::Answer => Top::Answer,
                    _ => Top::Json,
                };
                // A part written before a refusal is cut back with the row.
                let wrote = Canon {
                    out: &mut s.bytes,
                    top,
                }
                .deserialize(d)?;
                match wrote {
                    true if s.close() => valid.push(true),
                    false if self.nullable => {
                        s.close();
                        valid.push(false);
                    }
                    _ => return Err(refused()),
                }
                Ok(())
            }
            _ => d.deserialize_any(self),
        }
    }
}

impl Val<'_> {
    /// Marks the value just appended as valid.
    fn appended<E>(self) -> Result<(), E> {
        self.buf.valid.push(true);
        Ok(())
    }
}

impl<'de> Visitor<'de> for Val<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.ty.describe())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        if !self.nullable {
            return Err(refused());
        }
        self.buf.push_null();
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        match &mut self.buf.data {
            Data::Bool(b) => b.push(v),
            _ => return Err(refused()),
        }
        self.appended()
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        match &mut self.buf.data {
            Data::Int(x) => x.push(v),
            Data::Float(x) => x.push(v as f64),
            _ => return Err(refused()),
        }
        self.appended()
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        match &mut self.buf.data {
            Data::Int(x) => x.push(i64::try_from(v).map_err(|_| refused::<E>())?),
            Data::Float(x) => x.push(v as f64),
            _ => return Err(refused()),
        }
        self.appended()
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        match &mut self.buf.data {
            Data::Float(x) => x.push(v),
            _ => return Err(refused()),
        }
        self.appended()
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        match (&mut self.buf.data, self.ty) {
            (Data::Str(_), Ty::Enum(values)) if !values.contains(&v) => return Err(refused()),
            // The slow path (validate) says why a regular expression is refused.
            (Data::Str(_), Ty::Regex) if regex::Regex::new(&format!("^({v})$")).is_err() => {
                return Err(refused());
            }
            (Data::Str(s), Ty::Regex) => {
                s.bytes.extend_from_slice(v.as_bytes());
                if !s.close() {
                    return Err(refused());
                }
            }
            (Data::Str(s), Ty::Str | Ty::Enum(_)) => {
                s.bytes.extend_from_slice(v.as_bytes());
                if !s.close() {
                    return Err(refused());
                }
            }
            (Data::Micros(x), Ty::Timestamp) => {
                let t = DateTime::parse_from_rfc3339(v).map_err(|_| refused::<E>())?;
                x.push(t.timestamp_micros());
            }
            (Data::Days(x), Ty::Date) => {
                let d = NaiveDate::parse_from_str(v, "%Y-%m-%d").map_err(|_| refused::<E>())?;
                x.push(days(d));
            }
            _ => return Err(refused()),
        }
        self.appended()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (Data::List { offsets, item }, Ty::List(item_ty)) = (&mut self.buf.data, self.ty)
        else {
            return Err(refused());
        };
        while let Some(()) = seq.next_element_seed(Val {
            ty: item_ty,
            nullable: false,
            buf: item,
        })? {}
        let end = i32::try_from(item.len()).map_err(|_| refused::<A::Error>())?;
        offsets.push(end);
        self.appended()
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let (Data::Struct(children), Ty::Struct(cols)) = (&mut self.buf.data, self.ty) else {
            return Err(refused());
        };
        let res = Obj {
            cols,
            bufs: children,
        }
        .visit_map(map);
        res?;
        self.appended()
    }
}

/// Days since 1970-01-01, Arrow's Date32.
fn days(d: NaiveDate) -> i32 {
    (d - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()).num_days() as i32
}

/// Where a canonical JSON value is: the whole of a JSON column (a string holding an object
/// or an array is that JSON), a gold answer (no object, boolean or null), or inside one.
#[derive(Clone, Copy, PartialEq)]
enum Top {
    Json,
    Answer,
    Inner,
}

/// Writes a value as canonical JSON text, the text `serde_json::Value` prints: keys sorted
/// (the last of a repeated key kept), no spaces. Returns false for a top-level null.
struct Canon<'a> {
    out: &'a mut Vec<u8>,
    top: Top,
}

impl<'de> DeserializeSeed<'de> for Canon<'_> {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl Canon<'_> {
    fn inner(out: &mut Vec<u8>) -> Canon<'_> {
        Canon {
            out,
            top: Top::Inner,
        }
    }

    fn write<T: serde::Serialize + ?Sized, E: de::Error>(&mut self, v: &T) -> Result<bool, E> {
        serde_json::to_writer(&mut *self.out, v).map_err(E::custom)?;
        Ok(true)
    }
}

impl<'de> Visitor<'de> for Canon<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        match self.top {
            Top::Inner => {
                self.out.extend_from_slice(b"null");
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn visit_bool<E: de::Error>(mut self, v: bool) -> Result<bool, E> {
        if self.top == Top::Answer {
            return Err(refused());
        }
        self.write(&v)
    }

    fn visit_i64<E: de::Error>(mut self, v: i64) -> Result<bool, E> {
        self.write(&v)
    }

    fn visit_u64<E: de::Error>(mut self, v: u64) -> Result<bool, E> {
        self.write(&v)
    }

    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<bool, E> {
        // serde_json's Value keeps a non-finite number as null; its parser makes none.
        match serde_json::Number::from_f64(v) {
            Some(n) => self.write(&n),
            None => {
                self.out.extend_from_slice(b"null");
                Ok(true)
            }
        }
    }

    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<bool, E> {
        if self.top != Top::Inner {
            let t = v.trim_start();
            if t.starts_with('{') || t.starts_with('[') {
                let start = self.out.len();
                let mut de = serde_json::Deserializer::from_str(v);
                let inner = Canon::inner(self.out)
                    .deserialize(&mut de)
                    .and_then(|w| de.end().map(|()| w));
                match inner {
                    Ok(_) => return Ok(true),
                    Err(_) => self.out.truncate(start),
                }
            }
        }
        self.write(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        self.out.push(b'[');
        let mut first = true;
        loop {
            let mark = self.out.len();
            if !first {
                self.out.push(b',');
            }
            match seq.next_element_seed(Canon::inner(self.out))? {
                Some(_) => first = false,
                None => {
                    self.out.truncate(mark);
                    break;
                }
            }
        }
        self.out.push(b']');
        Ok(true)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        if self.top == Top::Answer {
            return Err(refused());
        }
        let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let mut v = Vec::new();
            map.next_value_seed(Canon::inner(&mut v))?;
            entries.push((k, v));
        }
        // Stable, so of equal keys the last stays last; keep only it.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        self.out.push(b'{');
        let mut first = true;
        for (i, (k, v)) in entries.iter().enumerate() {
            if entries.get(i + 1).is_some_and(|(next, _)| next == k) {
                continue;
            }
            if !first {
                self.out.push(b',');
            }
            first = false;
            serde_json::to_writer(&mut *self.out, k).map_err(A::Error::custom)?;
            self.out.push(b':');
            self.out.extend_from_slice(v);
        }
        self.out.push(b'}');
        Ok(true)
    }
}

/// A checked object's fields appended to their columns (`check_line`'s output: only known
/// keys, JSON columns as text, timestamps and dates normalized).
fn push_object(cols: &[Col], bufs: &mut [Buf], row: &Value) -> Result<(), String> {
    for (c, b) in cols.iter().zip(bufs.iter_mut()) {
        match row.get(c.name) {
            None | Some(Value::Null) => b.push_null(),
            Some(v) => push_value(&c.ty, b, v).map_err(|()| format!("field {}", c.name))?,
        }
    }
    Ok(())
}

fn push_value(ty: &Ty, buf: &mut Buf, v: &Value) -> Result<(), ()> {
    match (&mut buf.data, ty, v) {
        (Data::Str(_), Ty::Regex, Value::String(t))
            if regex::Regex::new(&format!("^({t})$")).is_err() =>
        {
            return Err(());
        }
        (
            Data::Str(s),
            Ty::Str | Ty::Enum(_) | Ty::Json | Ty::Answer | Ty::Regex,
            Value::String(t),
        ) => {
            s.bytes.extend_from_slice(t.as_bytes());
            if !s.close() {
                return Err(());
            }
        }
        (Data::Int(x), Ty::Int, Value::Number(n)) => x.push(n.as_i64().ok_or(())?),
        (Data::Float(x), Ty::Float, Value::Number(n)) => x.push(n.as_f64().ok_or(())?),
        (Data::Bool(x), Ty::Bool, Value::Bool(b)) => x.push(*b),
        (Data::Micros(x), Ty::Timestamp, Value::String(t)) => x.push(
            DateTime::parse_from_rfc3339(t)
                .map_err(|_| ())?
                .timestamp_micros(),
        ),
        (Data::Days(x), Ty::Date, Value::String(t)) => x.push(days(
            NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|_| ())?,
        )),
        (Data::List { offsets, item }, Ty::List(item_ty), Value::Array(items)) => {
            for i in items {
                push_value(item_ty, item, i)?;
            }
            offsets.push(i32::try_from(item.len()).map_err(|_| ())?);
        }
        (Data::Struct(children), Ty::Struct(cols), Value::Object(_)) => {
            push_object(cols, children, v).map_err(|_| ())?;
        }
        _ => return Err(()),
    }
    buf.valid.push(true);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::validate::check_line;
    use crate::model::{CASES, STEPS, all_tables};

    /// The reference: `check_line` then Arrow's JSON decoder, as ingest did before.
    fn reference(spec: &'static TableSpec, lines: &[&str]) -> (RecordBatch, Vec<bool>) {
        let mut rows = Vec::new();
        let ok: Vec<bool> = lines
            .iter()
            .map(|l| match check_line(spec, l) {
                Ok(v) => {
                    rows.push(v);
                    true
                }
                Err(_) => false,
            })
            .collect();
        let mut d = arrow::json::ReaderBuilder::new(spec.schema.clone())
            .with_batch_size(rows.len().max(1))
            .build_decoder()
            .unwrap();
        d.serialize(&rows).unwrap();
        let batch = d
            .flush()
            .unwrap()
            .unwrap_or_else(|| RecordBatch::new_empty(spec.schema.clone()));
        (batch, ok)
    }

    /// Both paths as `jsonl::decode` uses them: fast, then the slow one for a refusal.
    fn decoded(spec: &'static TableSpec, lines: &[&str]) -> (RecordBatch, Vec<bool>, usize) {
        let mut cols = Columns::new(spec);
        let mut slow = 0;
        let ok = lines
            .iter()
            .map(|l| {
                if cols.push_line(l) {
                    return true;
                }
                slow += 1;
                match check_line(spec, l) {
                    Ok(v) => cols.push_checked(&v).is_ok(),
                    Err(_) => false,
                }
            })
            .collect();
        (cols.finish().unwrap(), ok, slow)
    }

    fn same(spec: &'static TableSpec, lines: &[&str]) -> usize {
        let (want, want_ok) = reference(spec, lines);
        let (got, got_ok, slow) = decoded(spec, lines);
        assert_eq!(got_ok, want_ok, "{}", spec.name);
        assert_eq!(got, want, "{}", spec.name);
        slow
    }

    #[test]
    fn same_rows_as_arrow_json_on_the_demo_and_generated_projects() {
        let dir = tempfile::tempdir().unwrap();
        crate::synth::generate(300, 7, dir.path(), &|_| {}).unwrap();
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo");
        let mut checked = 0;
        for root in [demo.as_path(), dir.path()] {
            for spec in all_tables() {
                let mut text = String::new();
                for f in walk(root) {
                    let name = f.to_string_lossy();
                    if name.contains(&format!("{}.jsonl", spec.location))
                        || name.contains(&format!("{}/", spec.location))
                    {
                        text.push_str(&std::fs::read_to_string(&f).unwrap());
                    }
                }
                let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                checked += lines.len();
                assert_eq!(same(spec, &lines), 0, "{} took the slow path", spec.name);
            }
        }
        assert!(checked > 3000, "{checked}");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
        out.sort();
        out
    }

    #[test]
    fn same_rows_and_refusals_on_awkward_lines() {
        let step = |extra: &str| {
            format!(
                r#"{{"run_id":"r","server":"s","trace_id":"t","step":1,"kind":"tool_call"{extra}}}"#
            )
        };
        let lines = [
            step(""),
            step(r#","ts":"2026-07-01T02:00:00.1234567+02:00""#),
            step(r#","ts":"1969-12-31T23:59:59.5Z""#),
            step(r#","arguments":"{\"b\": 1, \"a\": [1.50, -0, 1e3, \"\\u00e9\\n\"]}""#),
            step(r#","arguments":{"z":{"y":null,"x":true},"a":"[not json"}"#),
            step(r#","arguments":"  [1, 2]  ""#),
            step(r#","arguments":"plain text""#),
            step(r#","arguments":null,"result":{"b":1,"b":2,"a":{}}"#),
            step(r#","arguments":123456789012345678901234567890"#),
            step(r#","extra":{"deep":[1,2,{"x":3}]},"is_error":false"#),
            step(r#","step":2"#),
            step(r#","ts":"2026-07-01T02:00:00""#),
            step(r#","is_error":"no""#),
            step(r#","kind":"bogus""#),
            step(r#","arguments":{"a":1"#),
            step(r#"} trailing"#),
            r#"{"run_id":"r","server":"s","trace_id":"t","step":18446744073709551615,"kind":"answer"}"#.to_string(),
            r#"{"run_id":"r","server":"s","trace_id":"t","step":1.0,"kind":"answer"}"#.to_string(),
            r#"{"run_id":"r","server":null,"trace_id":"t","step":1,"kind":"answer"}"#.to_string(),
            "[1,2]".to_string(),
            "\"text\"".to_string(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let slow = same(&STEPS, &lines);
        // The repeated keys (result's "b" is JSON, so not a repeat of a column; "step"
        // twice is) and the refused lines took the slow path.
        assert!(slow >= 9, "{slow}");

        let case = |gold: &str| {
            format!(
                r#"{{"case_id":"c","user_role":"r","as_user":"u","question":"q","gold":{gold}}}"#
            )
        };
        let lines = [
            case(
                r#"{"answer":[1,"a"],"required_fields":["t.c"],"window":{"start":"2026-04-01","end":"2026-06-30","calendar":"fiscal"}}"#,
            ),
            case(r#"{"answer":"{\"n\":1}","required_fields":[]}"#),
            case(r#"{"answer":3.25,"window":null}"#),
            case(r#"{"answer":{"n":1}}"#),
            case(r#"{"answer":true}"#),
            case(r#"{"answer":null,"required_fields":["a",null]}"#),
            case(r#"{"answer":1,"required_fields":["a",2]}"#),
            case(
                r#"{"answer":1,"window":{"start":"2026-04-01","end":"June","calendar":"fiscal"}}"#,
            ),
            case(
                r#"{"answer":1,"window":{"start":"2026-04-01","end":"2026-06-30","calendar":"lunar"}}"#,
            ),
            case(
                r#"{"answer":1,"window":{"start":"2026-04-01","end":"2026-06-30","calendar":"calendar"}}"#,
            ),
            case(
                r#"{"answer":1,"expected_calls":[{"tool":"t","arguments":{"b":2,"a":1}},{"tool":"u"}]}"#,
            ),
            case(r#"{"answer":1,"expected_calls":[{"tool":"t"},{"arguments":{}}]}"#),
            case(r#"{"answer":1}"#).replace(r#""question":"q","#, ""),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        same(&CASES, &lines);
    }

    #[test]
    fn a_refused_line_leaves_no_trace_in_the_columns() {
        let mut cols = Columns::new(&STEPS);
        let good =
            r#"{"run_id":"r","server":"s","trace_id":"t","step":1,"kind":"answer","text":"a"}"#;
        assert!(cols.push_line(good));
        // Fails after several columns (and a nested JSON value) were appended.
        let bad = r#"{"run_id":"r2","server":"s2","arguments":{"q":[1,2]},"trace_id":"t","step":"x","kind":"answer"}"#;
        assert!(!cols.push_line(bad));
        assert!(cols.push_line(good));
        let batch = cols.finish().unwrap();
        assert_eq!(batch, reference(&STEPS, &[good, good]).0);
    }
}
