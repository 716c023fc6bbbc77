//! `result_is_empty(result)`: does a tool result hold no records?
//!
//! True for an empty JSON array or object, for an object whose arrays are all empty (and
//! that has at least one), and for an object whose `count` or `total` is 0; false for
//! anything else that is JSON; NULL when the result is NULL or not JSON. The symptom it
//! serves (seed 000, entity class): "an empty result the agent treats as a true negative".

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BooleanBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};
use serde_json::Value;

use crate::common::{Strings, arrays, check_args, doc_section};

crate::make_udf!(ResultIsEmpty, result_is_empty_udf);

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Whether a tool result holds no records: an empty array, only empty arrays, or a zero count.",
        "result_is_empty(result)",
    )
    .with_argument("result", "The tool result, JSON text.")
    .with_sql_example("SELECT result_is_empty('{\"tickets\": [], \"count\": 0}');\n-- true")
    .build()
});

/// The verdict for one parsed result.
pub fn is_empty(v: &Value) -> bool {
    match v {
        Value::Array(items) => items.is_empty(),
        Value::Object(o) => {
            if o.is_empty() {
                return true;
            }
            let zero = ["count", "total"]
                .iter()
                .any(|k| o.get(*k).and_then(Value::as_f64) == Some(0.0));
            let arrays: Vec<&Vec<Value>> = o.values().filter_map(Value::as_array).collect();
            zero || (!arrays.is_empty() && arrays.iter().all(|a| a.is_empty()))
        }
        _ => false,
    }
}

impl ScalarUDFImpl for ResultIsEmpty {
    fn name(&self) -> &str {
        "result_is_empty"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(self.name(), args, &["string"], 1)?;
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let result = Strings::new(&arrays[0])?;
        let mut out = BooleanBuilder::with_capacity(rows);
        for i in 0..rows {
            let v = result
                .get(i)
                .and_then(|r| serde_json::from_str::<Value>(r).ok());
            out.append_option(v.as_ref().map(is_empty));
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let e = |s: &str| is_empty(&serde_json::from_str(s).unwrap());
        assert!(
            e("[]")
                && e("{}")
                && e(r#"{"tickets": [], "count": 0}"#)
                && e(r#"{"rows": [], "columns": []}"#)
        );
        assert!(e(r#"{"total": 0}"#));
        assert!(
            !e(r#"{"count": 1284}"#)
                && !e(r#"[{"a": 1}]"#)
                && !e(r#"{"rows": [[1]], "columns": ["a"]}"#)
                && !e("\"text\"")
        );
    }
}
