//! `groundcheck run`: the harness's runner (seed 000, run.py). Runs the user's agent once
//! per case with the gateway between it and the server under test, and writes the
//! traces, ready for `label`.
//!
//! The agent contract (docs/gateway.md): the agent gets the case on stdin as one JSON line
//! and in environment variables, starts `GROUNDCHECK_MCP_COMMAND` (or the argv in
//! `GROUNDCHECK_MCP_ARGV`) as its stdio MCP server, and prints its result last on
//! stdout: `{"answer": ..., "usage": {"model", "input_tokens", "output_tokens", "usd"},
//! "steps": [{"kind", "text"}]}`, or plain text, which is then the answer.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;

use crate::error::{Error, Result};
use crate::input::child::{self, Env};
use crate::mcp::gateway::record::{file_stem, now};

/// One case as the runner needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub case_id: String,
    pub question: String,
    pub as_user: Option<String>,
    pub user_role: Option<String>,
}

/// Reads cases.jsonl (the case schema; only the fields a run needs are read). Not the
/// `cases` table's reader: a run takes case skeletons too (a `sample` worksheet, whose
/// gold is not filled in yet), which that table refuses. Errors name the file, the line
/// and the field.
pub fn parse_cases(file: &str, text: &str) -> Result<Vec<Case>> {
    let mut out: Vec<Case> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |f: &str, why: &str| Error::Input(format!("{file}:{}: field `{f}`: {why}", i + 1));
        let v: Value = serde_json::from_str(line)
            .map_err(|e| Error::Input(format!("{file}:{}: not JSON: {e}", i + 1)))?;
        let s = |k: &str| -> Result<Option<String>> {
            match v.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(at(k, "expected a string")),
            }
        };
        let case_id = s("case_id")?
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(|| at("case_id", "required"))?;
        if !seen.insert(case_id.clone()) {
            return Err(at("case_id", &format!("'{case_id}' appears twice")));
        }
        out.push(Case {
            question: s("question")?.ok_or_else(|| at("question", "required"))?,
            as_user: s("as_user")?,
            user_role: s("user_role")?,
            case_id,
        });
    }
    Ok(out)
}

/// What the agent printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentResult {
    pub answer: Option<String>,
    pub model: Option<String>,
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub usd: Option<f64>,
    /// Extra steps the agent reports (reasoning, assistant, clarification).
    pub steps: Vec<Reported>,
}

/// A step the agent reports, and where it happened: at `ts`, or after its `after_calls`-th
/// tool call (0: before the first); with neither, after every call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reported {
    pub kind: String,
    pub text: String,
    pub ts: Option<chrono::DateTime<chrono::Utc>>,
    pub after_calls: Option<usize>,
}

/// The last stdout line that is a JSON object with `answer`; else all of stdout is the
/// answer text (none when empty).
pub fn parse_output(stdout: &str) -> std::result::Result<AgentResult, String> {
    let last = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let v = match serde_json::from_str::<Value>(last.trim()) {
        Ok(v @ Value::Object(_)) if v.get("answer").is_some() => v,
        _ => {
            let text = stdout.trim();
            return Ok(AgentResult {
                answer: (!text.is_empty()).then(|| text.to_string()),
                ..AgentResult::default()
            });
        }
    };
    let answer = match &v["answer"] {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    };
    let usage = v.get("usage").cloned().unwrap_or(Value::Null);
    let int = |k: &str| -> std::result::Result<Option<i64>, String> {
        match usage.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => x
                .as_i64()
                .map(Some)
                .ok_or_else(|| format!("usage.{k}: expected a whole number, got {x}")),
        }
    };
    let mut steps = Vec::new();
    for (i, s) in v
        .get("steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let kind = s.get("kind").and_then(Value::as_str).unwrap_or_default();
        if !["reasoning", "assistant", "clarification"].contains(&kind) {
            return Err(format!(
                "steps[{i}].kind: expected reasoning, assistant or clarification, got '{kind}'"
            ));
        }
        let text = s.get("text").and_then(Value::as_str).unwrap_or_default();
        let ts = match s.get("ts") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(
                chrono::DateTime::parse_from_rfc3339(t)
                    .map_err(|e| format!("steps[{i}].ts: not an RFC 3339 time ({e}): {t}"))?
                    .with_timezone(&chrono::Utc),
            ),
            Some(x) => return Err(format!("steps[{i}].ts: expected an RFC 3339 time, got {x}")),
        };
        let after_calls = match s.get("after_calls") {
            None | Some(Value::Null) => None,
            Some(x) => Some(
                x.as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| format!("steps[{i}].after_calls: expected a count, got {x}"))?,
            ),
        };
        steps.push(Reported {
            kind: kind.to_string(),
            text: text.to_string(),
            ts,
            after_calls,
        });
    }
    Ok(AgentResult {
        answer,
        model: usage
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string),
        input_tokens: int("input_tokens")?,
        output_tokens: int("output_tokens")?,
        usd: match usage.get("usd") {
            None | Some(Value::Null) => None,
            Some(x) => Some(
                x.as_f64()
                    .ok_or_else(|| format!("usage.usd: expected a number, got {x}"))?,
            ),
        },
        steps,
    })
}

pub struct Options {
    pub agent: String,
    pub run_id: String,
    pub out: PathBuf,
    /// The gateway's arguments after `gateway` (upstream, pin, timeouts), without the
    /// per-case identity, which the runner adds.
    pub gateway_args: Vec<String>,
    pub case_timeout: Duration,
    pub server: Option<String>,
    /// Variables (or `PREFIX*`) the agent gets beside the default allow-list.
    pub pass_env: Vec<String>,
}

/// How one case went.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub case_id: String,
    pub trace_id: String,
    /// "ok", "agent failed (exit N)", "timed out after Ns", "bad output: ...".
    pub status: String,
    pub steps: Vec<Value>,
    pub tool_calls: usize,
    pub refused: usize,
    pub answer: Option<String>,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.status == "ok"
    }
}

/// Writes a run's outcomes under `out`: every case's steps as one
/// `traces/RUN_ID.parquet` (the `steps` table) and one line per case to
/// `run/RUN_ID/summary.jsonl`. Returns the trace file and how many steps it holds.
pub fn write(out: &Path, run_id: &str, outcomes: &[Outcome]) -> Result<(PathBuf, usize)> {
    let rows: Vec<Value> = outcomes.iter().flat_map(|o| o.steps.clone()).collect();
    let trace = out
        .join("traces")
        .join(format!("{}.parquet", file_stem(run_id)));
    let mut f = crate::output::ParquetFile::create(&trace, crate::model::STEPS.schema.clone())?;
    f.write(&crate::input::import::steps_batch(&rows)?)?;
    f.finish()?;
    let summary: String = outcomes
        .iter()
        .map(|o| {
            json!({"case_id": o.case_id, "trace_id": o.trace_id, "status": o.status,
                   "tool_calls": o.tool_calls, "refused": o.refused, "answer": o.answer})
            .to_string()
                + "\n"
        })
        .collect();
    let path = out
        .join("run")
        .join(file_stem(run_id))
        .join("summary.jsonl");
    crate::output::write_atomic(&path, summary.as_bytes())
        .map_err(|e| Error::io(path.display(), e))?;
    Ok((trace, rows.len()))
}

/// Runs the agent on one case.
pub async fn run_case(opts: &Options, case: &Case) -> Result<Outcome> {
    let trace_id = format!("{}/{}", opts.run_id, case.case_id);
    let dir = opts.out.join("run").join(file_stem(&opts.run_id));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::Input(format!("cannot create {}: {e}", dir.display())))?;
    let exe = std::env::current_exe()
        .map_err(|e| Error::Bug(format!("cannot find the groundcheck binary: {e}")))?;
    let mut argv: Vec<String> = vec![
        exe.display().to_string(),
        "gateway".into(),
        "--out".into(),
        dir.display().to_string(),
        "--run-id".into(),
        opts.run_id.clone(),
        "--trace-id".into(),
        trace_id.clone(),
        "--case-id".into(),
        case.case_id.clone(),
    ];
    for (flag, v) in [
        ("--as-user", &case.as_user),
        ("--user-role", &case.user_role),
    ] {
        if let Some(v) = v {
            argv.push(flag.into());
            argv.push(v.clone());
        }
    }
    if let Some(s) = &opts.server {
        argv.push("--server".into());
        argv.push(s.clone());
    }
    argv.extend(opts.gateway_args.iter().cloned());
    let command = argv
        .iter()
        .map(|a| crate::drift::snapshot::shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ");
    let stdin_line = json!({
        "case_id": case.case_id, "question": case.question, "as_user": case.as_user,
        "user_role": case.user_role, "trace_id": trace_id,
        "mcp": {"command": command, "argv": argv},
    });
    let stem = file_stem(&case.case_id);
    let log = dir.join(format!("{stem}.agent.log"));
    let log_file = std::fs::File::create(&log)
        .map_err(|e| Error::Input(format!("cannot create {}: {e}", log.display())))?;
    let started = now();
    let mut cmd = child::command(&opts.agent, Env::Allowed(&opts.pass_env));
    cmd.env("GROUNDCHECK_CASE_ID", &case.case_id)
        .env("GROUNDCHECK_QUESTION", &case.question)
        .env("GROUNDCHECK_TRACE_ID", &trace_id)
        .env("GROUNDCHECK_MCP_COMMAND", &command)
        .env(
            "GROUNDCHECK_MCP_ARGV",
            Value::from(argv.clone()).to_string(),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log_file))
        .process_group(0);
    for (k, v) in [
        ("GROUNDCHECK_AS_USER", &case.as_user),
        ("GROUNDCHECK_USER_ROLE", &case.user_role),
    ] {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Config(format!("cannot start the agent `{}`: {e}", opts.agent)))?;
    let pid = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        // An agent that ignores stdin may close it early: that is not an error.
        let _ = stdin.write_all(format!("{stdin_line}\n").as_bytes()).await;
    }
    let waited = tokio::time::timeout(opts.case_timeout, child.wait_with_output()).await;
    let (status, stdout) = match waited {
        Ok(Ok(out)) => {
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            match out.status.code() {
                Some(0) => ("ok".to_string(), stdout),
                Some(c) => (format!("agent failed (exit {c})"), stdout),
                None => (format!("agent killed ({})", out.status), stdout),
            }
        }
        Ok(Err(e)) => (format!("agent failed ({e})"), String::new()),
        Err(_) => {
            // The agent, its gateway and the server share the agent's process group.
            // (Not `kill -KILL -PGID`: procps' kill read that as "every process".)
            if let Some(pgid) = pid.and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 1) {
                // SAFETY: kill(2) with a negative pid signals that process group only.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
            (
                format!("timed out after {}s", opts.case_timeout.as_secs_f64()),
                String::new(),
            )
        }
    };
    let (status, result) = match parse_output(&stdout) {
        Ok(r) => (status, r),
        Err(e) if status == "ok" => (format!("bad output: {e}"), AgentResult::default()),
        Err(_) => (status, AgentResult::default()),
    };
    let steps_file = dir
        .join("gateway")
        .join(format!("{}.steps.jsonl", file_stem(&trace_id)));
    let recorded = read_steps(&steps_file)?;
    let server = recorded
        .iter()
        .find_map(|s| s.get("server").and_then(Value::as_str))
        .filter(|s| *s != "unknown")
        .map(str::to_string)
        .or(opts.server.clone())
        .unwrap_or_else(|| "unknown".into());
    let base = |kind: &str, ts: &str| {
        let mut m = Map::new();
        m.insert("run_id".into(), json!(opts.run_id));
        m.insert("server".into(), json!(server));
        m.insert("case_id".into(), json!(case.case_id));
        m.insert("trace_id".into(), json!(trace_id));
        m.insert("ts".into(), json!(ts));
        m.insert("kind".into(), json!(kind));
        if let Some(u) = &case.as_user {
            m.insert("as_user".into(), json!(u));
        }
        if let Some(r) = &case.user_role {
            m.insert("user_role".into(), json!(r));
        }
        m
    };
    let mut steps = Vec::new();
    let mut user = base("user", &started);
    user.insert("text".into(), json!(case.question));
    steps.push(user);
    let tool_calls = recorded.iter().filter(|s| s["kind"] == "tool_call").count();
    let refused = recorded
        .iter()
        .filter(|s| {
            s["kind"] == "tool_result"
                && s["result"]
                    .as_str()
                    .is_some_and(|r| r.contains("Tool blocked") || r.contains("is disabled"))
        })
        .count();
    let recorded: Vec<Map<String, Value>> = recorded
        .into_iter()
        .map(|s| {
            let mut m = s.as_object().cloned().unwrap_or_default();
            m.insert("server".into(), json!(server));
            m
        })
        .collect();
    let ended = now();
    let reported = result
        .steps
        .iter()
        .map(|r| {
            let mut m = base(&r.kind, &ended);
            m.insert("text".into(), json!(r.text));
            (r, m)
        })
        .collect();
    steps.extend(interleave(recorded, reported, &started));
    if let Some(a) = &result.answer {
        let mut m = base("answer", &ended);
        m.insert("text".into(), json!(a));
        for (k, v) in [
            ("model", result.model.clone().map(Value::from)),
            ("input_tokens", result.input_tokens.map(Value::from)),
            ("output_tokens", result.output_tokens.map(Value::from)),
            ("usd", result.usd.map(Value::from)),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        }
        steps.push(m);
    }
    let steps: Vec<Value> = steps
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            m.insert("step".into(), json!(i + 1));
            Value::Object(m)
        })
        .collect();
    Ok(Outcome {
        case_id: case.case_id.clone(),
        trace_id,
        status,
        steps,
        tool_calls,
        refused,
        answer: result.answer,
    })
}

/// The recorded steps with the agent's reported ones placed where they happened: at their
/// `ts` (before the first recorded step after it), or after the result of their
/// `after_calls`-th tool call; else after every recorded step. Reported steps keep their
/// order among themselves; one placed among the recorded ones takes its own `ts`, or the
/// `ts` of the step before it (`started` at the very start).
fn interleave(
    recorded: Vec<Map<String, Value>>,
    reported: Vec<(&Reported, Map<String, Value>)>,
    started: &str,
) -> Vec<Map<String, Value>> {
    let time = |m: &Map<String, Value>| {
        m.get("ts")
            .and_then(Value::as_str)
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&chrono::Utc))
    };
    // Where the n-th tool call (1-based) ends: after its result, else after the call.
    let mut call_ends = Vec::new();
    for (i, m) in recorded.iter().enumerate() {
        if m.get("kind").and_then(Value::as_str) != Some("tool_call") {
            continue;
        }
        let id = m.get("call_id");
        let result = recorded[i + 1..].iter().position(|r| {
            r.get("kind").and_then(Value::as_str) == Some("tool_result") && r.get("call_id") == id
        });
        call_ends.push(result.map_or(i + 1, |j| i + 1 + j + 1));
    }
    let n = recorded.len();
    let mut at: Vec<Vec<Map<String, Value>>> = vec![Vec::new(); n + 1];
    for (r, mut m) in reported {
        let pos = match (r.ts, r.after_calls) {
            (Some(t), _) => recorded
                .iter()
                .position(|s| time(s).is_some_and(|st| st > t))
                .unwrap_or(n),
            (None, Some(0)) => 0,
            (None, Some(k)) => call_ends.get(k - 1).copied().unwrap_or(n),
            (None, None) => n,
        };
        let ts = match r.ts {
            Some(t) => Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
            None if pos == n => None,
            None if pos == 0 => Some(started.to_string()),
            None => recorded[pos - 1]
                .get("ts")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        if let Some(ts) = ts {
            m.insert("ts".into(), json!(ts));
        }
        at[pos].push(m);
    }
    let mut out = Vec::with_capacity(n + at.iter().map(Vec::len).sum::<usize>());
    let mut at = at.into_iter();
    for step in recorded {
        out.extend(at.next().into_iter().flatten());
        out.push(step);
    }
    out.extend(at.flatten());
    out
}

/// The gateway's steps for one case (none when the agent never connected).
fn read_steps(path: &Path) -> Result<Vec<Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::Input(format!("{}: {e}", path.display()))),
    };
    // Lines are written whole; a torn last line (a killed gateway) is skipped.
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_steps_go_where_they_happened() {
        let step = |kind: &str, call: &str, ts: &str| {
            json!({"kind": kind, "call_id": call, "ts": ts})
                .as_object()
                .cloned()
                .unwrap()
        };
        let recorded = vec![
            step("tool_call", "1", "2026-01-01T00:00:01Z"),
            step("tool_result", "1", "2026-01-01T00:00:02Z"),
            step("tool_call", "2", "2026-01-01T00:00:05Z"),
            step("tool_result", "2", "2026-01-01T00:00:06Z"),
        ];
        // The agent's result is its last line of output.
        let line = json!({"answer": "x", "steps": [
            {"kind": "reasoning", "text": "plan", "after_calls": 0},
            {"kind": "clarification", "text": "which year?", "ts": "2026-01-01T00:00:03Z"},
            {"kind": "reasoning", "text": "retry", "after_calls": 1},
            {"kind": "assistant", "text": "done"}]});
        let out = parse_output(&line.to_string()).unwrap();
        let reported = out
            .steps
            .iter()
            .map(|r| {
                let m = json!({"kind": r.kind, "text": r.text})
                    .as_object()
                    .cloned()
                    .unwrap();
                (r, m)
            })
            .collect();
        let got: Vec<String> = interleave(recorded, reported, "2026-01-01T00:00:00Z")
            .iter()
            .map(|m| {
                format!(
                    "{} {} {}",
                    m["kind"].as_str().unwrap(),
                    m.get("text")
                        .or(m.get("call_id"))
                        .unwrap()
                        .as_str()
                        .unwrap(),
                    m.get("ts").and_then(Value::as_str).unwrap_or("-")
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                "reasoning plan 2026-01-01T00:00:00Z",
                "tool_call 1 2026-01-01T00:00:01Z",
                "tool_result 1 2026-01-01T00:00:02Z",
                "clarification which year? 2026-01-01T00:00:03Z",
                "reasoning retry 2026-01-01T00:00:02Z",
                "tool_call 2 2026-01-01T00:00:05Z",
                "tool_result 2 2026-01-01T00:00:06Z",
                "assistant done -",
            ]
        );
        assert!(
            parse_output(r#"{"answer": "x", "steps": [{"kind": "reasoning", "ts": "noon"}]}"#)
                .unwrap_err()
                .contains("steps[0].ts: not an RFC 3339 time")
        );
    }

    #[test]
    fn agent_output_json_or_text() {
        let r = parse_output(
            "log line\n{\"answer\": 1284, \"usage\": {\"model\": \"m\", \"input_tokens\": 10, \
             \"output_tokens\": 2, \"usd\": 0.01}, \"steps\": [{\"kind\": \"reasoning\", \"text\": \"t\"}]}\n",
        )
        .unwrap();
        assert_eq!(r.answer.as_deref(), Some("1284"));
        assert_eq!(r.input_tokens, Some(10));
        assert_eq!(r.usd, Some(0.01));
        assert_eq!(
            r.steps,
            vec![Reported {
                kind: "reasoning".into(),
                text: "t".into(),
                ..Reported::default()
            }]
        );
        let t = parse_output("  1,284 active customers\n").unwrap();
        assert_eq!(t.answer.as_deref(), Some("1,284 active customers"));
        assert_eq!(parse_output("").unwrap().answer, None);
        assert_eq!(
            parse_output("{\"answer\": \"x\", \"usage\": {\"input_tokens\": \"ten\"}}")
                .unwrap_err(),
            "usage.input_tokens: expected a whole number, got \"ten\""
        );
    }

    #[test]
    fn cases_need_an_id_and_a_question() {
        let err = parse_cases(
            "cases.jsonl",
            "{\"case_id\": \"a\", \"question\": \"q\"}\n{\"case_id\": \"b\"}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("cases.jsonl:2: field `question`: required"),
            "{err}"
        );
        let err = parse_cases(
            "c",
            "{\"case_id\": \"a\", \"question\": \"q\"}\n{\"case_id\": \"a\", \"question\": \"q\"}",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("c:2: field `case_id`: 'a' appears twice"),
            "{err}"
        );
    }
}
