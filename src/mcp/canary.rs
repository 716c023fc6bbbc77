//! Canaries (seed 002): known-good tool calls with expectations, run against a live server
//! and compared with a stored baseline, so a behaviour change shows before users see it.
//!
//! `canaries.jsonl`, one per line: `{"name", "tool", "arguments", "expect": {"exact",
//! "contains", "min_rows", "shape", "error"}}`. The result a canary judges is the call's
//! structuredContent when there is one, else its text content (parsed when it is JSON),
//! else the content list.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// Where and how one run of the canaries goes.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// `stdio:CMD` or an http(s) URL.
    pub source: String,
    /// The server's name, when its own is not wanted.
    pub server: Option<String>,
    pub timeout: Duration,
    pub pass_env: Vec<String>,
    /// The baseline file (read, and written when it changes).
    pub baseline: PathBuf,
    /// Take every result as the new baseline, failed or not.
    pub update_baseline: bool,
    /// Folder for `canary/traces/RUN.jsonl`.
    pub out: PathBuf,
}

/// One run's outcome.
#[derive(Debug)]
pub struct Run {
    pub server: String,
    /// Each canary's name and verdict, in file order.
    pub verdicts: Vec<(String, Verdict)>,
    pub failed: usize,
    /// The run's steps (the `steps` table, JSONL).
    pub trace: PathBuf,
    /// The baseline, when this run changed it.
    pub baseline: Option<PathBuf>,
}

/// Calls each canary's tool on the server once, records the calls as trace steps, and
/// judges each result against its expectations and the baseline (which a canary without
/// one, or every canary with `update_baseline`, sets).
pub async fn run(canaries: &[Canary], o: &RunOptions) -> Result<Run> {
    use crate::drift::snapshot::{connect, server_info};
    let (client, _) = connect(&o.source, o.timeout, &o.pass_env).await?;
    let server = o
        .server
        .clone()
        .or(server_info(&client).0)
        .unwrap_or_else(|| o.source.clone());
    let now = || chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let run_id = format!("canary-{}", chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"));
    let shown = o.baseline.display().to_string();
    let mut baseline = match std::fs::read_to_string(&o.baseline) {
        Ok(t) => parse_baseline(&shown, &t)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(Error::io(&shown, e)),
    };
    let mut steps = String::new();
    let mut verdicts = Vec::new();
    let mut changed = false;
    for (i, c) in canaries.iter().enumerate() {
        let trace_id = format!("{run_id}/{}", c.name);
        let call_id = format!("c{}", i + 1);
        let mut step = |n: u32, kind: &str, extra: Value| {
            let mut v = json!({"run_id": run_id, "server": server, "trace_id": trace_id, "step": n,
                               "ts": now(), "kind": kind, "call_id": call_id, "tool": c.tool});
            for (k, x) in extra.as_object().expect("object") {
                v[k] = x.clone();
            }
            steps += &v.to_string();
            steps.push('\n');
        };
        step(1, "tool_call", json!({"arguments": c.arguments}));
        let params = rmcp::model::CallToolRequestParams::new(c.tool.clone())
            .with_arguments(c.arguments.clone());
        let (is_error, result) =
            match tokio::time::timeout(o.timeout, client.call_tool(params)).await {
                Ok(Ok(r)) => {
                    let v = serde_json::to_value(&r).map_err(|e| {
                        Error::Upstream(format!("{}: tools/call result: {e}", o.source))
                    })?;
                    let is_error = v.get("isError").and_then(Value::as_bool).unwrap_or(false);
                    (is_error, crate::input::import::mcp_result::value(&v))
                }
                Ok(Err(e)) => (true, json!({"error": e.to_string()})),
                Err(_) => (
                    true,
                    json!({"error": format!("no answer within {:?}", o.timeout)}),
                ),
            };
        step(
            2,
            "tool_result",
            json!({"result": result, "is_error": is_error}),
        );
        let verdict = judge(c, is_error, &result, baseline.get(&c.name));
        if o.update_baseline || (verdict.failures.is_empty() && !baseline.contains_key(&c.name)) {
            baseline.insert(c.name.clone(), Seen::of(&result));
            changed = true;
        }
        verdicts.push((c.name.clone(), verdict));
    }
    let _ = client.cancel().await;
    let trace = o.out.join("canary/traces").join(format!("{run_id}.jsonl"));
    let write = |path: &Path, text: &str| {
        crate::output::write_atomic(path, text.as_bytes()).map_err(|e| Error::io(path.display(), e))
    };
    write(&trace, &steps)?;
    if changed {
        let text: String = baseline
            .iter()
            .map(|(k, s)| s.to_json(k).to_string() + "\n")
            .collect();
        write(&o.baseline, &text)?;
    }
    let failed = verdicts
        .iter()
        .filter(|(_, v)| !v.failures.is_empty())
        .count();
    Ok(Run {
        server,
        verdicts,
        failed,
        trace,
        baseline: changed.then(|| o.baseline.clone()),
    })
}
