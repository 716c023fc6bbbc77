//! Canaries (seed 002): known-good tool calls with expectations, run against a live server
//! and compared with a stored baseline, so a behaviour change shows before users see it.
//!
//! `canaries.jsonl`, one per line: `{"name", "tool", "arguments", "expect": {"exact",
//! "contains", "min_rows", "shape", "error"}}`. The result a canary judges is the call's
//! structuredContent when there is one, else its text content (parsed when it is JSON),
//! else the content list.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
pub struct Canary {
    pub name: String,
    pub tool: String,
    pub arguments: Map<String, Value>,
    pub exact: Option<Value>,
    pub contains: Vec<String>,
    pub min_rows: Option<u64>,
    /// Fail when the result's shape differs from the baseline's (default true).
    pub shape: bool,
    /// The call is expected to be a tool error (default false).
    pub error: bool,
}

/// Reads canaries.jsonl; errors name the file, the line and the field.
pub fn parse(file: &str, text: &str) -> Result<Vec<Canary>> {
    let mut out: Vec<Canary> = Vec::new();
    let mut names = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |field: &str, why: String| {
            Error::Input(format!("{file}:{}: field `{field}`: {why}", i + 1))
        };
        let v: Value = serde_json::from_str(line)
            .map_err(|e| Error::Input(format!("{file}:{}: not JSON: {e}", i + 1)))?;
        let o = v
            .as_object()
            .ok_or_else(|| at("(line)", "expected a JSON object".into()))?;
        let text_field = |k: &str| -> Result<String> {
            match o.get(k) {
                Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
                Some(other) => Err(at(k, format!("expected a non-empty string, got {other}"))),
                None => Err(at(k, "required".into())),
            }
        };
        let name = text_field("name")?;
        if !names.insert(name.clone()) {
            return Err(at("name", format!("canary '{name}' is defined twice")));
        }
        let tool = text_field("tool")?;
        let arguments = match o.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => return Err(at("arguments", format!("expected an object, got {other}"))),
        };
        let empty = Map::new();
        let e = match o.get("expect") {
            None => &empty,
            Some(Value::Object(m)) => m,
            Some(other) => return Err(at("expect", format!("expected an object, got {other}"))),
        };
        for k in e.keys() {
            if !["exact", "contains", "min_rows", "shape", "error"].contains(&k.as_str()) {
                return Err(at(
                    &format!("expect.{k}"),
                    "unknown expectation (exact, contains, min_rows, shape, error)".into(),
                ));
            }
        }
        let contains = match e.get("contains") {
            None => Vec::new(),
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| at("expect.contains", "expected strings".into()))
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(at(
                    "expect.contains",
                    format!("expected a string or a list of strings, got {other}"),
                ));
            }
        };
        let flag = |k: &str, default: bool| -> Result<bool> {
            match e.get(k) {
                None => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(at(
                    &format!("expect.{k}"),
                    format!("expected true or false, got {other}"),
                )),
            }
        };
        out.push(Canary {
            name,
            tool,
            arguments,
            exact: e.get("exact").cloned(),
            contains,
            min_rows: match e.get("min_rows") {
                None => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    at(
                        "expect.min_rows",
                        format!("expected a whole number, got {v}"),
                    )
                })?),
            },
            shape: flag("shape", true)?,
            error: flag("error", false)?,
        });
    }
    Ok(out)
}

use groundcheck_udfs::result_shape::rows;

/// What the baseline keeps per canary.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub shape: String,
    pub rows: u64,
    pub result: String,
}

impl Seen {
    pub fn of(result: &Value) -> Seen {
        Seen {
            shape: groundcheck_udfs::result_shape::shape_hash(result),
            rows: rows(result),
            result: result.to_string(),
        }
    }

    pub fn to_json(&self, name: &str) -> Value {
        json!({"name": name, "shape": self.shape, "rows": self.rows, "result": self.result})
    }
}

pub fn parse_baseline(file: &str, text: &str) -> Result<BTreeMap<String, Seen>> {
    let mut out = BTreeMap::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = || {
            Error::Input(format!(
                "{file}:{}: not a baseline line (name, shape, rows, result)",
                i + 1
            ))
        };
        let v: Value = serde_json::from_str(line).map_err(|_| bad())?;
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(bad)
        };
        out.insert(
            s("name")?,
            Seen {
                shape: s("shape")?,
                rows: v.get("rows").and_then(Value::as_u64).ok_or_else(bad)?,
                result: s("result")?,
            },
        );
    }
    Ok(out)
}

/// The outcome of one canary: failures (each a reason) and notes (changes that do not
/// fail it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    pub failures: Vec<String>,
    pub notes: Vec<String>,
}

pub fn judge(c: &Canary, is_error: bool, result: &Value, baseline: Option<&Seen>) -> Verdict {
    let mut v = Verdict::default();
    if is_error != c.error {
        v.failures.push(if is_error {
            format!(
                "the call returned a tool error: {}",
                clip(&result.to_string())
            )
        } else {
            "expected a tool error, the call succeeded".to_string()
        });
    }
    if let Some(want) = &c.exact
        && want != result
    {
        v.failures.push(format!(
            "result {} is not the expected {}",
            clip(&result.to_string()),
            clip(&want.to_string())
        ));
    }
    let text = match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for s in &c.contains {
        if !text.contains(s.as_str()) {
            v.failures.push(format!("result does not contain {s:?}"));
        }
    }
    let now = Seen::of(result);
    if let Some(min) = c.min_rows
        && now.rows < min
    {
        v.failures
            .push(format!("{} row(s), expected at least {min}", now.rows));
    }
    if let Some(b) = baseline {
        if b.shape != now.shape {
            let msg = format!("result shape changed ({} -> {})", b.shape, now.shape);
            if c.shape {
                v.failures.push(msg)
            } else {
                v.notes.push(msg)
            }
        }
        if b.rows > 0 && now.rows == 0 {
            v.failures.push(format!(
                "suddenly empty: {} row(s) in the baseline, 0 now",
                b.rows
            ));
        } else if b.rows != now.rows {
            v.notes.push(format!("rows {} -> {}", b.rows, now.rows));
        }
        if b.result != now.result && b.shape == now.shape {
            v.notes.push("result changed (same shape)".to_string());
        }
    }
    v
}

fn clip(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}
