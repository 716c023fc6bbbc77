//! MCP JSON-RPC logs: JSON lines of {"direction", "timestamp", "message"} as a proxy or
//! client writes them. tools/call request and response pairs become tool_call and
//! tool_result steps; a tools/list response also becomes a tool snapshot.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Imported, Options, Step, TraceFile, bad, documents, parse_time};
use crate::error::Result;

fn key(id: &Value) -> String {
    id.to_string()
}

/// The tool_call step of a tools/call request (at `seq`, time `ts`); the response's step
/// is built from it.
fn call_step(
    req: &Value,
    seq: usize,
    ts: Option<chrono::DateTime<chrono::Utc>>,
    server: &Option<String>,
    stem: &str,
) -> Step {
    let params = req.get("params");
    let meta = params.and_then(|p| p.get("_meta"));
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    Step {
        kind: "tool_call",
        ts,
        seq: seq * 2,
        trace_id: text(meta.and_then(|m| m.get("trace_id").or(m.get("traceId"))))
            .unwrap_or_else(|| stem.to_string()),
        server: server.clone(),
        case_id: text(meta.and_then(|m| m.get("case_id"))),
        as_user: text(meta.and_then(|m| m.get("as_user"))),
        call_id: req.get("id").map(|id| match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
        tool: text(params.and_then(|p| p.get("name"))),
        arguments: params.and_then(|p| p.get("arguments")).cloned(),
        ..Step::default()
    }
}

pub fn read(
    f: &TraceFile,
    opts: &Options,
    steps: &mut Vec<Step>,
    out: &mut Imported,
) -> Result<()> {
    let docs = documents(f)?;
    out.records += docs.len();
    let stem = std::path::Path::new(&f.display)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mcp".into());
    let mut requests: BTreeMap<String, (usize, Value, Option<chrono::DateTime<chrono::Utc>>)> =
        BTreeMap::new();
    let mut server = opts.server.clone();
    for (seq, (line, doc)) in docs.iter().enumerate() {
        let Some(msg) = doc.get("message") else {
            return Err(bad(
                &f.display,
                *line,
                1,
                "expected {\"direction\", \"timestamp\", \"message\"}",
            ));
        };
        let ts = doc.get("timestamp").and_then(parse_time);
        if msg.get("method").is_some() {
            // A request waits for its response; a notification (no id) carries no step.
            if let Some(id) = msg.get("id") {
                requests.insert(key(id), (seq, msg.clone(), ts));
            }
            continue;
        }
        let Some(id) = msg.get("id") else { continue };
        let Some((rseq, req, rts)) = requests.remove(&key(id)) else {
            *out.lacking
                .entry("responses without their request (skipped)".into())
                .or_default() += 1;
            continue;
        };
        match req.get("method").and_then(Value::as_str).unwrap_or("") {
            // `initialize` (up to 2025-11-25) and `server/discover` (2026-07-28) name the server.
            "initialize" | "server/discover" if server.is_none() => {
                server = msg
                    .pointer("/result/serverInfo/name")
                    .or_else(|| {
                        msg.pointer("/result/_meta/io.modelcontextprotocol~1serverInfo/name")
                    })
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            "tools/list" => {
                let captured = ts
                    .or(rts)
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true));
                for t in msg
                    .pointer("/result/tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    out.snapshots.push(json!({
                        "server": server.clone().unwrap_or_else(|| "unknown".into()),
                        "captured_at": captured,
                        "tool": t.get("name"), "title": t.get("title"), "description": t.get("description"),
                        "input_schema": t.get("inputSchema"),
                        "output_schema": t.get("outputSchema"),
                        "annotations": t.get("annotations"),
                    }));
                }
            }
            "tools/call" => {
                // 2026-07-28 results carry the server's name in their `_meta` as well.
                if server.is_none() {
                    server = msg
                        .pointer("/result/_meta/io.modelcontextprotocol~1serverInfo/name")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
                let call = call_step(&req, rseq, rts, &server, &stem);
                steps.push(call.clone());
                let (result, is_error) = match (msg.get("result"), msg.get("error")) {
                    (Some(r), _) => {
                        let value = super::mcp_result::value(r);
                        (
                            value,
                            r.get("isError").and_then(Value::as_bool).unwrap_or(false),
                        )
                    }
                    (None, Some(e)) => (json!({"error": e}), true),
                    _ => (Value::Null, true),
                };
                let as_of = super::mcp_result::as_of(&result, msg.pointer("/result/_meta"));
                steps.push(Step {
                    kind: "tool_result",
                    ts,
                    seq: seq * 2 + 1,
                    arguments: None,
                    result: Some(result),
                    is_error: Some(is_error),
                    as_of,
                    ..call
                });
            }
            _ => {}
        }
    }
    // Calls the log ends before answering stay in the trace, without a result.
    for (_, (rseq, req, rts)) in requests {
        *out.lacking
            .entry("requests with no response (the log ends first)".into())
            .or_default() += 1;
        if req.get("method").and_then(Value::as_str) != Some("tools/call") {
            continue;
        }
        steps.push(call_step(&req, rseq, rts, &server, &stem));
    }
    Ok(())
}
