//! `validate_args(schema, args [, strict])`: a tool call's arguments checked against the
//! tool's inputSchema (JSON Schema, with the `jsonschema` crate), before or after calling.
//!
//! Returns one message per violation, in seed 002's corrective form: `Schema mismatch:
//! expected parameter 'search_query', found 'query'` (an unknown parameter next to a
//! schema property it resembles: a likely rename), `Schema mismatch: unknown parameter
//! 'x'`, `Schema mismatch: missing required parameter 'query'`, `Schema mismatch:
//! parameter 'max_results': "10" is not of type "number"`. `strict` (default true) rejects
//! parameters the schema does not name, as the seed asks; with false only what the schema
//! itself forbids is reported (for results checked against an outputSchema). Empty list:
//! valid. NULL when schema or args is NULL. A schema that is not JSON or not a valid JSON
//! Schema, or args that are not JSON, give one message saying so.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, AsArray, ListBuilder, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::common::{Memo, Strings, arrays, check_args, doc_section};

crate::make_udf!(ValidateArgs, validate_args_udf);

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Tool-call arguments checked against the tool's JSON Schema; one 'Schema mismatch: …' \
         message per violation, unknown parameters rejected unless strict is false.",
        "validate_args(schema, args [, strict])",
    )
    .with_argument("schema", "The tool's inputSchema (or outputSchema), JSON text.")
    .with_argument("args", "The call's arguments (or the result), JSON text.")
    .with_argument("strict", "Reject parameters the schema does not name (default true).")
    .with_sql_example(
        "SELECT validate_args('{\"type\":\"object\",\"properties\":{\"search_query\":{\"type\":\"string\"}},\"required\":[\"search_query\"]}', '{\"query\":\"x\"}');\n\
         -- [Schema mismatch: expected parameter 'search_query', found 'query', Schema mismatch: missing required parameter 'search_query']",
    )
    .build()
});

/// Compiled validators by schema text: a trace calls the same few tools again and again.
static VALIDATORS: LazyLock<Memo<String, Arc<std::result::Result<jsonschema::Validator, String>>>> =
    LazyLock::new(|| Memo::new(4096));

/// The violations of one call.
pub fn validate(schema_text: &str, args_text: &str, strict: bool) -> Vec<String> {
    let validator = VALIDATORS.get_or(schema_text, || {
        let compiled = serde_json::from_str::<Value>(schema_text)
            .map_err(|e| format!("the tool's schema is not JSON: {e}"))
            .and_then(|schema| {
                jsonschema::validator_for(&schema)
                    .map_err(|e| format!("the tool's schema is not a valid JSON Schema: {e}"))
            });
        Arc::new(compiled)
    });
    let validator = match validator.as_ref() {
        Ok(v) => v,
        Err(why) => return vec![format!("Schema mismatch: {why}")],
    };
    let Ok(args) = serde_json::from_str::<Value>(args_text) else {
        return vec!["Schema mismatch: the arguments are not JSON".into()];
    };
    let mut out = Vec::new();
    if strict
        && let (Value::Object(given), Ok(schema)) =
            (&args, serde_json::from_str::<Value>(schema_text))
    {
        let props: Vec<String> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let unused: Vec<&String> = props.iter().filter(|p| !given.contains_key(*p)).collect();
        for key in given.keys().filter(|k| !props.contains(k)) {
            let best = unused
                .iter()
                .map(|p| (crate::changes::name_similarity(key, p), *p))
                .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)));
            out.push(match best {
                Some((score, p)) if score >= 0.8 => {
                    format!("Schema mismatch: expected parameter '{p}', found '{key}'")
                }
                _ => format!("Schema mismatch: unknown parameter '{key}'"),
            });
        }
    }
    for e in validator.iter_errors(&args) {
        let path = e.instance_path().to_string();
        let param = path.trim_start_matches('/').replace('/', ".");
        let msg = match e.kind() {
            ValidationErrorKind::Required { property } => format!(
                "Schema mismatch: missing required parameter '{}'",
                property
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| property.to_string())
            ),
            // Reported above, with the likely rename, when strict.
            ValidationErrorKind::AdditionalProperties { .. } if strict => continue,
            _ if param.is_empty() => format!("Schema mismatch: {e}"),
            _ => format!("Schema mismatch: parameter '{param}': {e}"),
        };
        out.push(msg);
    }
    out
}

impl ScalarUDFImpl for ValidateArgs {
    fn name(&self) -> &str {
        "validate_args"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(
            self.name(),
            &args[..args.len().min(2)],
            &["string", "string"],
            2,
        )?;
        match args.get(2) {
            None | Some(DataType::Boolean) | Some(DataType::Null) => {}
            Some(t) => return plan_err!("validate_args: argument 3 must be a boolean, got {t}"),
        }
        if args.len() > 3 {
            return plan_err!("validate_args takes 2 or 3 arguments, got {}", args.len());
        }
        Ok(DataType::List(Arc::new(Field::new(
            "item",
            DataType::Utf8,
            true,
        ))))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let schema = Strings::new(&arrays[0])?;
        let given = Strings::new(&arrays[1])?;
        let strict = arrays.get(2).map(|a| a.as_boolean_opt().cloned());
        let mut out = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
            "item",
            DataType::Utf8,
            true,
        )));
        for i in 0..rows {
            let (Some(s), Some(a)) = (schema.get(i), given.get(i)) else {
                out.append(false);
                continue;
            };
            let strict = match &strict {
                Some(Some(b)) if datafusion::arrow::array::Array::is_valid(b, i) => b.value(i),
                _ => true,
            };
            for m in validate(s, a, strict) {
                out.values().append_value(m);
            }
            out.append(true);
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

    const SEARCH: &str = r#"{"type":"object","properties":{"search_query":{"type":"string","description":"Search query"},"max_results":{"type":"number"},"format":{"type":"string","enum":["json","text"]}},"required":["search_query"]}"#;

    #[test]
    fn the_seed_rename() {
        assert_eq!(
            validate(SEARCH, r#"{"query": "test", "max_results": 5}"#, true),
            [
                "Schema mismatch: expected parameter 'search_query', found 'query'",
                "Schema mismatch: missing required parameter 'search_query'"
            ]
        );
    }

    #[test]
    fn types_enums_and_unknowns() {
        assert_eq!(
            validate(
                SEARCH,
                r#"{"search_query": "x", "max_results": "10"}"#,
                true
            ),
            [r#"Schema mismatch: parameter 'max_results': "10" is not of type "number""#]
        );
        let enum_err = validate(SEARCH, r#"{"search_query": "x", "format": "xml"}"#, true);
        assert_eq!(enum_err.len(), 1);
        assert!(
            enum_err[0].starts_with("Schema mismatch: parameter 'format': \"xml\" is not one of"),
            "{enum_err:?}"
        );
        assert_eq!(
            validate(SEARCH, r#"{"search_query": "x", "zzz": 1}"#, true),
            ["Schema mismatch: unknown parameter 'zzz'"]
        );
        assert!(validate(SEARCH, r#"{"search_query": "x", "zzz": 1}"#, false).is_empty());
        assert!(validate(SEARCH, r#"{"search_query": "x"}"#, true).is_empty());
    }

    #[test]
    fn unreadable_inputs_say_so() {
        assert_eq!(
            validate("{", "{}", true)[0].split(':').next().unwrap(),
            "Schema mismatch"
        );
        assert!(validate("{", "{}", true)[0].contains("not JSON"));
        assert!(validate(r#"{"type": 12}"#, "{}", true)[0].contains("not a valid JSON Schema"));
        assert_eq!(
            validate(SEARCH, "nope", true),
            ["Schema mismatch: the arguments are not JSON"]
        );
    }
}
