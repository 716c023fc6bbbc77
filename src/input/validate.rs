//! Checks one JSON line against a table's columns and returns it in the form the Arrow
//! decoder reads: only known keys, JSON columns as canonical text, timestamps in UTC.
//!
//! Every problem names the field by its dotted path (`gold.window.start`), so an error can
//! say file, line and field. Nothing here guesses: a wrong type is an error, not a cast.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde_json::{Map, Value};

use crate::model::{Col, TableSpec, Ty};

/// Why a line was refused: the field (dotted path) when one is at fault, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: Option<String>,
    pub reason: String,
}

impl Problem {
    fn at(field: &str, reason: impl Into<String>) -> Self {
        Self {
            field: Some(field.to_string()),
            reason: reason.into(),
        }
    }

    pub fn line(reason: impl Into<String>) -> Self {
        Self {
            field: None,
            reason: reason.into(),
        }
    }
}

/// Parses and checks one line (already known to be UTF-8 and not blank).
pub fn check_line(spec: &TableSpec, line: &str) -> Result<Value, Problem> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| Problem::line(format!("malformed JSON: {e}")))?;
    let Value::Object(obj) = value else {
        return Err(Problem::line(format!(
            "expected a JSON object, found {}",
            kind(&value)
        )));
    };
    check_object(&spec.cols, obj, &String::new).map(Value::Object)
}

/// A field's path, built only when a message needs it: most lines have no problem, and
/// formatting every field's path cost an allocation per field per line.
type Path<'a> = &'a dyn Fn() -> String;

fn check_object(
    cols: &[Col],
    mut obj: Map<String, Value>,
    prefix: Path,
) -> Result<Map<String, Value>, Problem> {
    let mut out = Map::new();
    for c in cols {
        let path = || format!("{}{}", prefix(), c.name);
        match obj.remove_entry(c.name) {
            None | Some((_, Value::Null)) if c.required => {
                return Err(Problem::at(&path(), "missing required field"));
            }
            None | Some((_, Value::Null)) => {}
            Some((key, v)) => {
                out.insert(key, check_value(&c.ty, v, &path)?);
            }
        }
    }
    Ok(out)
}

fn check_value(ty: &Ty, v: Value, path: Path) -> Result<Value, Problem> {
    let wrong = |v: &Value| {
        Problem::at(
            &path(),
            format!("expected {}, found {}", ty.describe(), kind(v)),
        )
    };
    match ty {
        Ty::Str => match v {
            Value::String(_) => Ok(v),
            _ => Err(wrong(&v)),
        },
        Ty::Regex => match &v {
            // Compiled as the id-scheme check anchors it, so what is accepted here runs.
            Value::String(s) => match regex::Regex::new(&format!("^({s})$")) {
                Ok(_) => Ok(v),
                Err(e) => Err(Problem::at(
                    &path(),
                    format!(
                        "not a regular expression: {}",
                        e.to_string()
                            .lines()
                            .last()
                            .unwrap_or("")
                            .trim_start_matches("error: ")
                    ),
                )),
            },
            _ => Err(wrong(&v)),
        },
        Ty::Enum(values) => match &v {
            Value::String(s) if values.contains(&s.as_str()) => Ok(v),
            Value::String(s) => Err(Problem::at(
                &path(),
                format!("expected one of {}, found \"{s}\"", values.join(" | ")),
            )),
            _ => Err(wrong(&v)),
        },
        Ty::Int => match &v {
            Value::Number(n) if n.is_i64() => Ok(v),
            Value::Number(n) if n.is_u64() => {
                Err(Problem::at(&path(), format!("integer {n} is out of range")))
            }
            _ => Err(wrong(&v)),
        },
        Ty::Float => match v {
            Value::Number(_) => Ok(v),
            _ => Err(wrong(&v)),
        },
        Ty::Bool => match v {
            Value::Bool(_) => Ok(v),
            _ => Err(wrong(&v)),
        },
        Ty::Timestamp => match &v {
            Value::String(s) => parse_timestamp(s)
                .map(Value::String)
                .map_err(|r| Problem::at(&path(), r)),
            _ => Err(wrong(&v)),
        },
        Ty::Date => match &v {
            Value::String(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map(|d| Value::String(d.format("%Y-%m-%d").to_string()))
                .map_err(|e| {
                    Problem::at(
                        &path(),
                        format!("expected a date YYYY-MM-DD, found \"{s}\" ({e})"),
                    )
                }),
            _ => Err(wrong(&v)),
        },
        Ty::Json => Ok(Value::String(json_text(v))),
        Ty::Answer => match v {
            Value::Number(_) | Value::String(_) | Value::Array(_) => {
                Ok(Value::String(json_text(v)))
            }
            _ => Err(wrong(&v)),
        },
        Ty::List(item) => match v {
            Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let at = || format!("{}[{i}]", path());
                    match x {
                        Value::Null => Err(Problem::at(&at(), "null in a list")),
                        x => check_value(item, x, &at),
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            _ => Err(wrong(&v)),
        },
        Ty::Struct(cols) => match v {
            Value::Object(obj) => {
                check_object(cols, obj, &|| format!("{}.", path())).map(Value::Object)
            }
            _ => Err(wrong(&v)),
        },
    }
}

/// RFC 3339 with an offset, normalized to UTC with microseconds. A timestamp without an
/// offset is refused: guessing its zone is how a window goes wrong.
fn parse_timestamp(s: &str) -> Result<String, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| {
            t.with_timezone(&Utc)
                .to_rfc3339_opts(SecondsFormat::Micros, true)
        })
        .map_err(|e| format!("expected an RFC 3339 timestamp with offset, found \"{s}\" ({e})"))
}

/// Canonical JSON text: keys sorted (serde_json's map is ordered), no spaces. A string
/// holding a JSON object or array is unwrapped first.
fn json_text(v: Value) -> String {
    if let Value::String(s) = &v {
        let t = s.trim_start();
        if (t.starts_with('{') || t.starts_with('['))
            && let Ok(inner) = serde_json::from_str::<Value>(s)
        {
            return inner.to_string();
        }
    }
    v.to_string()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CASES, STEPS};

    fn err(spec: &TableSpec, line: &str) -> (Option<String>, String) {
        let p = check_line(spec, line).unwrap_err();
        (p.field, p.reason)
    }

    const CASE: &str = r#"{"case_id":"c1","user_role":"r","as_user":"u","question":"q","gold":{"answer":[1,"a"],"required_fields":["t.c"],"window":{"start":"2026-04-01","end":"2026-06-30","calendar":"fiscal"}},"extra":1}"#;

    #[test]
    fn normalizes_json_columns_and_drops_unknown_keys() {
        let v = check_line(&CASES, CASE).unwrap();
        assert_eq!(v["gold"]["answer"], Value::String(r#"[1,"a"]"#.into()));
        assert!(v.get("extra").is_none());
    }

    #[test]
    fn names_the_nested_field() {
        let line = CASE.replace("2026-06-30", "June");
        let (field, reason) = err(&CASES, &line);
        assert_eq!(field.as_deref(), Some("gold.window.end"));
        assert!(
            reason.starts_with("expected a date YYYY-MM-DD, found \"June\""),
            "{reason}"
        );
    }

    #[test]
    fn missing_required_and_wrong_type() {
        let line = CASE.replace(r#""question":"q","#, "");
        assert_eq!(
            err(&CASES, &line),
            (Some("question".into()), "missing required field".into())
        );
        let line = CASE.replace(r#"["t.c"]"#, r#"["t.c",3]"#);
        assert_eq!(
            err(&CASES, &line),
            (
                Some("gold.required_fields[1]".into()),
                "expected string, found integer".into()
            )
        );
        let line = CASE.replace(r#""fiscal""#, r#""lunar""#);
        assert_eq!(
            err(&CASES, &line),
            (
                Some("gold.window.calendar".into()),
                "expected one of fiscal | calendar, found \"lunar\"".into()
            )
        );
    }

    #[test]
    fn answer_may_not_be_an_object() {
        let line = CASE.replace(r#"[1,"a"]"#, r#"{"n":1}"#);
        let (field, _) = err(&CASES, &line);
        assert_eq!(field.as_deref(), Some("gold.answer"));
    }

    #[test]
    fn not_an_object_and_malformed() {
        assert_eq!(err(&CASES, "[1]").1, "expected a JSON object, found array");
        assert!(
            err(&CASES, "{\"case_id\":")
                .1
                .starts_with("malformed JSON: EOF")
        );
    }

    #[test]
    fn timestamps_need_an_offset_and_become_utc() {
        let base = r#"{"run_id":"r","server":"s","trace_id":"t","step":1,"kind":"tool_call","ts":"TS","arguments":"{\"b\":1,\"a\":2}"}"#;
        let v = check_line(&STEPS, &base.replace("TS", "2026-07-01T02:00:00+02:00")).unwrap();
        assert_eq!(v["ts"], "2026-07-01T00:00:00.000000Z");
        assert_eq!(v["arguments"], r#"{"a":2,"b":1}"#);
        let (field, _) = err(&STEPS, &base.replace("TS", "2026-07-01T02:00:00"));
        assert_eq!(field.as_deref(), Some("ts"));
    }

    #[test]
    fn integers_are_integers() {
        let line = r#"{"run_id":"r","server":"s","trace_id":"t","step":1.5,"kind":"answer"}"#;
        assert_eq!(
            err(&STEPS, line),
            (Some("step".into()), "expected integer, found number".into())
        );
    }
}
