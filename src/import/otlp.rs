//! OTLP JSON spans (GenAI and MCP semantic conventions, OpenInference attributes) and
//! Phoenix's flat OpenInference spans, mapped to steps. docs/importers.md has the table.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{Imported, Input, Step, bad, documents, json_or_text, parse_time};
use crate::error::Result;

/// A span, whatever it came in.
#[derive(Debug, Default)]
struct Span {
    trace_id: String,
    span_id: String,
    start: Option<DateTime<Utc>>,
    end: Option<DateTime<Utc>>,
    name: String,
    error: bool,
    attrs: Map<String, Value>,
}

/// An OTLP AnyValue as JSON.
fn any_value(v: &Value) -> Value {
    let Some(o) = v.as_object() else {
        return v.clone();
    };
    if let Some(s) = o.get("stringValue") {
        return s.clone();
    }
    if let Some(b) = o.get("boolValue") {
        return b.clone();
    }
    if let Some(i) = o.get("intValue") {
        // int64 as a string (the JSON mapping) or a number.
        return match i {
            Value::String(s) => s
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| i.clone()),
            other => other.clone(),
        };
    }
    if let Some(d) = o.get("doubleValue") {
        return match d {
            Value::String(s) => s
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .unwrap_or_else(|| d.clone()),
            other => other.clone(),
        };
    }
    if let Some(a) = o.get("arrayValue") {
        let vals = a
            .get("values")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        return Value::Array(vals.iter().map(any_value).collect());
    }
    if let Some(kv) = o.get("kvlistValue") {
        return Value::Object(key_values(kv.get("values")));
    }
    if let Some(b) = o.get("bytesValue") {
        return b.clone();
    }
    Value::Null
}

fn key_values(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|kv| {
                    Some((
                        kv.get("key")?.as_str()?.to_string(),
                        any_value(kv.get("value").unwrap_or(&Value::Null)),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// An id as lowercase hex: OTLP JSON says hex, some exporters write base64.
fn id(v: Option<&Value>, hex_len: usize) -> String {
    let s = v.and_then(Value::as_str).unwrap_or("");
    if s.len() == hex_len && s.chars().all(|c| c.is_ascii_hexdigit()) {
        return s.to_ascii_lowercase();
    }
    match base64::engine::general_purpose::STANDARD.decode(s) {
        Ok(b) if b.len() * 2 == hex_len => b.iter().map(|x| format!("{x:02x}")).collect(),
        _ => s.to_string(),
    }
}

/// Nested objects flattened to dotted keys (Phoenix writes `{"llm": {"model_name": …}}`).
fn flatten(prefix: &str, v: &Value, out: &mut Map<String, Value>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

fn spans_of(f: &Input, phoenix: bool, out: &mut Vec<Span>) -> Result<()> {
    for (line, doc) in documents(f)? {
        if let Some(rs) = doc.get("resourceSpans").and_then(Value::as_array) {
            for r in rs {
                let resource = key_values(r.get("resource").and_then(|x| x.get("attributes")));
                let scopes = r.get("scopeSpans").or(r.get("instrumentationLibrarySpans"));
                for sc in scopes.and_then(Value::as_array).into_iter().flatten() {
                    for s in sc
                        .get("spans")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let mut attrs = Map::new();
                        for (k, v) in &resource {
                            attrs.insert(format!("resource.{k}"), v.clone());
                        }
                        attrs.extend(key_values(s.get("attributes")));
                        let code = s.get("status").and_then(|x| x.get("code"));
                        out.push(Span {
                            trace_id: id(s.get("traceId"), 32),
                            span_id: id(s.get("spanId"), 16),
                            start: s.get("startTimeUnixNano").and_then(parse_time),
                            end: s.get("endTimeUnixNano").and_then(parse_time),
                            name: s
                                .get("name")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                            error: matches!(code, Some(Value::Number(n)) if n.as_i64() == Some(2))
                                || code.and_then(Value::as_str) == Some("STATUS_CODE_ERROR"),
                            attrs,
                        });
                    }
                }
            }
        } else if phoenix && doc.get("context").is_some() {
            let mut attrs = Map::new();
            if let Some(a) = doc.get("attributes") {
                flatten("", a, &mut attrs);
            }
            let ctx = doc.get("context");
            out.push(Span {
                trace_id: id(ctx.and_then(|c| c.get("trace_id")), 32),
                span_id: id(ctx.and_then(|c| c.get("span_id")), 16),
                start: doc.get("start_time").and_then(parse_time),
                end: doc.get("end_time").and_then(parse_time),
                name: doc
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                error: doc.get("status_code").and_then(Value::as_str) == Some("ERROR"),
                attrs,
            });
        } else {
            let want = if phoenix {
                "an OpenInference span (\"context\") or an OTLP export (\"resourceSpans\")"
            } else {
                "an OTLP export (\"resourceSpans\")"
            };
            return Err(bad(&f.display, line, 1, format!("not {want}")));
        }
    }
    Ok(())
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn int(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// The text of GenAI messages (`[{role, parts: [{type: text, content}]}]` or
/// `[{role, content}]`) with the given role.
fn message_text(v: Option<&Value>, role: &str, last: bool) -> Option<String> {
    let msgs = json_or_text(v?);
    let msgs = msgs.as_array()?;
    let mut texts = msgs
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some(role))
        .filter_map(|m| {
            if let Some(parts) = m.get("parts").and_then(Value::as_array) {
                let t: Vec<&str> = parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|p| p.get("content").and_then(Value::as_str))
                    .collect();
                (!t.is_empty()).then(|| t.join("\n"))
            } else {
                m.get("content").and_then(Value::as_str).map(str::to_string)
            }
        });
    if last {
        texts.next_back()
    } else {
        texts.next()
    }
}

/// OpenInference's indexed messages: `llm.input_messages.0.message.role`, ….
fn indexed_message(a: &Map<String, Value>, prefix: &str, role: &str, last: bool) -> Option<String> {
    let mut found = Vec::new();
    for i in 0..1000 {
        let r = a.get(&format!("{prefix}.{i}.message.role"));
        if r.is_none() {
            break;
        }
        if r.and_then(Value::as_str) == Some(role)
            && let Some(c) = text(a.get(&format!("{prefix}.{i}.message.content")))
        {
            found.push(c);
        }
    }
    if last {
        found.pop()
    } else {
        found.into_iter().next()
    }
}

pub fn read(f: &Input, phoenix: bool, steps: &mut Vec<Step>, out: &mut Imported) -> Result<()> {
    let mut spans = Vec::new();
    spans_of(f, phoenix, &mut spans)?;
    out.records += spans.len();
    spans.sort_by(|a, b| (a.start, &a.span_id).cmp(&(b.start, &b.span_id)));
    let mut tool_traces = BTreeSet::new();
    let mut llm: BTreeMap<String, Vec<(usize, Step)>> = BTreeMap::new();
    let mut pending_llm_calls: Vec<Step> = Vec::new();
    for (seq, s) in spans.iter().enumerate() {
        let a = |k: &str| s.attrs.get(k);
        let first = |ks: &[&str]| ks.iter().find_map(|k| a(k).filter(|v| !v.is_null()));
        let trace_id = text(first(&[
            "gen_ai.conversation.id",
            "session.id",
            "mcp.session.id",
        ]))
        .unwrap_or_else(|| s.trace_id.clone());
        let base = Step {
            trace_id: trace_id.clone(),
            // Not service.name: that names the agent, not the MCP server it called.
            server: text(first(&[
                "groundcheck.server",
                "resource.groundcheck.server",
                "mcp.server.name",
                "server.address",
            ])),
            case_id: text(a("groundcheck.case_id")),
            as_user: text(first(&["enduser.id", "user.id"])),
            seq: seq * 4,
            ..Step::default()
        };
        let op = text(a("gen_ai.operation.name")).unwrap_or_default();
        let oi = text(a("openinference.span.kind"))
            .unwrap_or_default()
            .to_ascii_uppercase();
        let mcp = text(a("mcp.method.name")).unwrap_or_default();
        if op == "execute_tool" || oi == "TOOL" || mcp == "tools/call" {
            tool_traces.insert(trace_id.clone());
            let tool = text(first(&["gen_ai.tool.name", "tool.name", "mcp.tool.name"]))
                .or_else(|| s.name.split_once(' ').map(|(_, t)| t.to_string()));
            let result = first(&["gen_ai.tool.call.result", "output.value"]).map(json_or_text);
            let as_of = a("groundcheck.as_of").and_then(parse_time).or_else(|| {
                result
                    .as_ref()
                    .and_then(|r| r.get("_meta"))
                    .and_then(|m| m.get("as_of"))
                    .and_then(parse_time)
            });
            let call_id = text(first(&["gen_ai.tool.call.id", "jsonrpc.request.id"]))
                .unwrap_or_else(|| s.span_id.clone());
            steps.push(Step {
                kind: "tool_call",
                ts: s.start,
                tool: tool.clone(),
                call_id: Some(call_id.clone()),
                arguments: first(&[
                    "gen_ai.tool.call.arguments",
                    "tool.parameters",
                    "input.value",
                ])
                .map(json_or_text),
                ..base.clone()
            });
            if result.is_none() && !s.error {
                *out.lacking
                    .entry("result on tool spans".into())
                    .or_default() += 1;
            }
            steps.push(Step {
                kind: "tool_result",
                ts: s.end.or(s.start),
                seq: base.seq + 1,
                tool,
                call_id: Some(call_id),
                is_error: Some(s.error || a("error.type").is_some()),
                result: result.or_else(|| a("error.type").map(|e| serde_json::json!({"error": e}))),
                as_of,
                ..base
            });
        } else if matches!(op.as_str(), "chat" | "text_completion" | "generate_content")
            || oi == "LLM"
        {
            let model = text(first(&[
                "gen_ai.response.model",
                "gen_ai.request.model",
                "llm.model_name",
            ]));
            let question = message_text(a("gen_ai.input.messages"), "user", false)
                .or_else(|| indexed_message(&s.attrs, "llm.input_messages", "user", false));
            let reply = message_text(a("gen_ai.output.messages"), "assistant", true)
                .or_else(|| indexed_message(&s.attrs, "llm.output_messages", "assistant", true));
            let entry = llm.entry(trace_id.clone()).or_default();
            if entry.is_empty()
                && let Some(q) = question
            {
                steps.push(Step {
                    kind: "user",
                    ts: s.start,
                    text: Some(q),
                    seq: base.seq,
                    ..base.clone()
                });
            }
            entry.push((
                steps.len(),
                Step {
                    kind: "assistant",
                    ts: s.end.or(s.start),
                    seq: base.seq + 2,
                    model,
                    input_tokens: int(first(&[
                        "gen_ai.usage.input_tokens",
                        "llm.token_count.prompt",
                    ])),
                    output_tokens: int(first(&[
                        "gen_ai.usage.output_tokens",
                        "llm.token_count.completion",
                    ])),
                    text: reply,
                    ..base.clone()
                },
            ));
            // Tool calls the model asked for (OpenInference), used when no tool span ran them.
            for i in 0..100 {
                let p = format!("llm.output_messages.0.message.tool_calls.{i}.tool_call");
                let Some(name) = text(a(&format!("{p}.function.name"))) else {
                    break;
                };
                pending_llm_calls.push(Step {
                    kind: "tool_call",
                    ts: s.end.or(s.start),
                    seq: base.seq + 3,
                    tool: Some(name),
                    call_id: text(a(&format!("{p}.id"))),
                    arguments: a(&format!("{p}.function.arguments")).map(json_or_text),
                    ..base.clone()
                });
            }
        } else {
            *out.lacking
                .entry("spans that are neither tools nor model calls (skipped)".into())
                .or_default() += 1;
        }
    }
    // The last model output of a conversation is its answer.
    for (_, list) in llm {
        let n = list.len();
        for (i, (_, mut st)) in list.into_iter().enumerate() {
            if i + 1 == n && st.text.is_some() {
                st.kind = "answer";
            }
            steps.push(st);
        }
    }
    steps.extend(
        pending_llm_calls
            .into_iter()
            .filter(|s| !tool_traces.contains(&s.trace_id)),
    );
    Ok(())
}
