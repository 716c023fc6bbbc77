//! `result_shape(result)` and `result_rows(result)`: what a tool result looks like, for
//! seed 002's runtime guards (a changed shape, a size far from the usual, a tool that
//! suddenly returns nothing).
//!
//! `result_shape` is 16 hex digits of SHA-256 over the result's structure: object keys and
//! value types, arrays as the set of their items' shapes, scalars as their type; values do
//! not matter. `result_rows` counts records: an array's length; for an object its `count`
//! or `total` when given, else its largest array's length (1 for another non-empty
//! object); 1 for a non-empty string or other scalar; 0 for null, "" and {}. Both are NULL
//! when the result is NULL or not JSON.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, Int64Builder, StringBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use serde_json::{Value, json};

use crate::common::{Strings, arrays, check_args, doc_section};

/// The structure of a value.
pub fn shape(v: &Value) -> Value {
    match v {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("boolean"),
        Value::Number(_) => json!("number"),
        Value::String(_) => json!("string"),
        Value::Array(a) => {
            let mut items: Vec<Value> = a.iter().map(shape).collect();
            items.sort_by_key(|x| x.to_string());
            items.dedup();
            Value::Array(items)
        }
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), shape(x))).collect()),
    }
}

pub fn shape_hash(v: &Value) -> String {
    crate::changes::short_hash(&shape(v).to_string())
}

/// Records in a result.
pub fn rows(v: &Value) -> u64 {
    match v {
        Value::Array(a) => a.len() as u64,
        Value::Object(o) => o
            .get("count")
            .or(o.get("total"))
            .and_then(Value::as_u64)
            .or_else(|| {
                o.values()
                    .filter_map(Value::as_array)
                    .map(|a| a.len() as u64)
                    .max()
            })
            .unwrap_or(if o.is_empty() { 0 } else { 1 }),
        Value::String(s) => u64::from(!s.is_empty()),
        Value::Null => 0,
        _ => 1,
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ResultShape {
    signature: Signature,
    rows: bool,
}

impl ResultShape {
    pub fn shape() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
            rows: false,
        }
    }

    pub fn rows() -> Self {
        Self {
            rows: true,
            ..Self::shape()
        }
    }
}

static SHAPE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "A hash of a tool result's structure (keys and value types, not values).",
        "result_shape(result)",
    )
    .with_argument("result", "The tool result, JSON text.")
    .with_sql_example("SELECT result_shape('{\"rows\": [[1]]}') = result_shape('{\"rows\": [[2], [3]]}');\n-- true")
    .build()
});

static ROWS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "How many records a tool result holds (array length, count/total, largest array).",
        "result_rows(result)",
    )
    .with_argument("result", "The tool result, JSON text.")
    .with_sql_example("SELECT result_rows('{\"tickets\": [{}, {}], \"page\": 1}');\n-- 2")
    .build()
});

impl ScalarUDFImpl for ResultShape {
    fn name(&self) -> &str {
        if self.rows {
            "result_rows"
        } else {
            "result_shape"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(self.name(), args, &["string"], 1)?;
        Ok(if self.rows {
            DataType::Int64
        } else {
            DataType::Utf8
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let input = Strings::new(&arrays[0])?;
        let parsed = (0..rows).map(|i| {
            input
                .get(i)
                .and_then(|t| serde_json::from_str::<Value>(t).ok())
        });
        let out: ArrayRef = if self.rows {
            let mut b = Int64Builder::with_capacity(rows);
            parsed.for_each(|v| b.append_option(v.map(|v| self::rows(&v) as i64)));
            Arc::new(b.finish())
        } else {
            let mut b = StringBuilder::new();
            parsed.for_each(|v| b.append_option(v.map(|v| shape_hash(&v))));
            Arc::new(b.finish())
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(if self.rows { &ROWS_DOC } else { &SHAPE_DOC })
    }
}
