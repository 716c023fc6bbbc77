//! Spans (from any encoding) made into steps: one `tool_call` + `tool_result` per logical
//! call however many spans describe it, one trace per conversation, each conversation tied
//! to its case. The rules are the table in docs/importers.md; what a span tree lacks is
//! left null and counted, never invented.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{Imported, Options, Step, json_or_text, mcp_result, parse_time};

/// OTLP's span kinds (the protobuf enum's numbers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SpanKind {
    #[default]
    Unspecified,
    Internal,
    Server,
    Client,
    Producer,
    Consumer,
}

impl SpanKind {
    pub fn from_i32(k: i32) -> Self {
        match k {
            1 => SpanKind::Internal,
            2 => SpanKind::Server,
            3 => SpanKind::Client,
            4 => SpanKind::Producer,
            5 => SpanKind::Consumer,
            _ => SpanKind::Unspecified,
        }
    }

    /// OTLP JSON's and Phoenix's names (`SPAN_KIND_CLIENT`, `CLIENT`, `client`).
    pub fn from_name(s: &str) -> Self {
        let s = s.trim().to_ascii_uppercase();
        match s.strip_prefix("SPAN_KIND_").unwrap_or(&s) {
            "INTERNAL" => SpanKind::Internal,
            "SERVER" => SpanKind::Server,
            "CLIENT" => SpanKind::Client,
            "PRODUCER" => SpanKind::Producer,
            "CONSUMER" => SpanKind::Consumer,
            _ => SpanKind::Unspecified,
        }
    }
}

/// A span, whatever encoding it came in. Resource attributes are in `attrs` under
/// `resource.` (a server span's `resource.service.name` names the MCP server's process).
#[derive(Debug, Clone, Default)]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_id: String,
    pub name: String,
    pub kind: SpanKind,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    pub error: bool,
    /// The status message, else an `exception` event's message.
    pub error_message: Option<String>,
    pub attrs: Map<String, Value>,
    /// Span events other than `exception` (some conventions carry the messages there).
    pub events: Vec<Event>,
}

/// A span event: its name, time and attributes.
#[derive(Debug, Clone, Default)]
pub struct Event {
    pub name: String,
    pub time: Option<DateTime<Utc>>,
    pub attrs: Map<String, Value>,
}

impl Span {
    fn get(&self, k: &str) -> Option<&Value> {
        self.attrs.get(k).filter(|v| !v.is_null())
    }

    fn text(&self, k: &str) -> Option<String> {
        text(self.get(k))
    }

    fn first_text(&self, ks: &[&str]) -> Option<String> {
        ks.iter().find_map(|k| self.text(k))
    }
}

pub(super) fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn int(v: Option<&Value>) -> Option<i64> {
    match v? {
        // pandas writes counts as floats (1000.0).
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Tool,
    Model,
    Other,
}

fn role(s: &Span) -> Role {
    let op = s.text("gen_ai.operation.name").unwrap_or_default();
    let oi = s
        .text("openinference.span.kind")
        .unwrap_or_default()
        .to_ascii_uppercase();
    let mcp = s.text("mcp.method.name").unwrap_or_default();
    let traceloop = s.text("traceloop.span.kind").unwrap_or_default();
    if op == "execute_tool" || oi == "TOOL" || mcp == "tools/call" || traceloop == "tool" {
        Role::Tool
    } else if matches!(
        op.as_str(),
        "chat" | "text_completion" | "generate_content" | "completion"
    ) || oi == "LLM"
        || s.text("llm.request.type").is_some()
    {
        Role::Model
    } else {
        Role::Other
    }
}

/// Attribute keys, in order, for each field of a call (first present wins; within a
/// call, spans are read from the agent's outward: the agent span, then the MCP client
/// span, then the server span).
const TOOL_NAME: &[&str] = &[
    "gen_ai.tool.name",
    "tool.name",
    "mcp.tool.name",
    "traceloop.entity.name",
];
const CALL_ID: &[&str] = &["gen_ai.tool.call.id", "tool_call.id", "tool.call.id"];
const ARGUMENTS: &[&str] = &[
    "gen_ai.tool.call.arguments",
    "input.value",
    "mcp.request.argument",
    "traceloop.entity.input",
];
const RESULT: &[&str] = &[
    "gen_ai.tool.call.result",
    "output.value",
    "traceloop.entity.output",
];
/// Where the MCP server's name is. Not the agent's `service.name`: on a SERVER span the
/// resource is the server's process, so there it is read.
const SERVER: &[&str] = &[
    "groundcheck.server",
    "resource.groundcheck.server",
    "mcp.server.name",
    "fastmcp.server.name",
    "server.address",
];
const USER: &[&str] = &["enduser.id", "user.id", "resource.enduser.id"];
const CONVERSATION: &[&str] = &["gen_ai.conversation.id", "session.id"];

/// The conversation a span names, if any: the traces that name one are one conversation.
pub fn conversation(s: &Span) -> Option<String> {
    s.first_text(CONVERSATION)
}
/// The documented span or baggage attribute that ties a trace to a case.
pub const CASE_ATTRS: &[&str] = &["groundcheck.case_id", "resource.groundcheck.case_id"];

/// Span-name prefixes of tool spans, for a span that names its tool only there.
const NAME_PREFIXES: &[&str] = &[
    "execute_tool ",
    "MCP send tools/call ",
    "tools/call ",
    "running tool: ",
];

fn tool_from_name(name: &str) -> Option<String> {
    for p in NAME_PREFIXES {
        if let Some(t) = name.strip_prefix(p) {
            return Some(t.trim().to_string()).filter(|t| !t.is_empty());
        }
    }
    // OpenLLMetry names tool spans `NAME.tool`.
    name.strip_suffix(".tool").map(str::to_string)
}

/// A JSON Schema, not a call's arguments (OpenInference's `tool.parameters` is the schema).
fn looks_like_schema(v: &Value) -> bool {
    v.get("properties").is_some_and(Value::is_object)
        && (v.get("type").and_then(Value::as_str) == Some("object") || v.get("$schema").is_some())
}

/// Arguments wrapped by the instrumentation: OpenLLMetry's `traceloop.entity.input`
/// (`{"arguments": {...}, ...}` or the whole JSON-RPC params `{"name", "arguments"}`),
/// and a Python call captured whole (`{"args": [], "kwargs": {...}}` or `{"kwargs": {...}}`,
/// as OpenInference records a wrapped function's input: smolagents' and LlamaIndex's tools).
fn unwrap_arguments(v: Value) -> Value {
    // LangChain's tool-start callback captured whole (OpenLLMetry's LangChain
    // instrumentation): `input_str` and `inputs` are Python reprs, not JSON; what parses
    // as a JSON object is kept, else nothing (the model's request gives them, by id).
    if let Value::Object(o) = &v
        && o.contains_key("input_str")
    {
        return match o.get("inputs").map(json_or_text) {
            Some(Value::Object(a)) => Value::Object(a),
            _ => Value::Null,
        };
    }
    if let Value::Object(o) = &v
        && let Some(Value::Object(kw)) = o.get("kwargs")
        && o.get("args")
            .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty))
        && !o.contains_key("name")
        && !o.contains_key("tool_name")
    {
        return Value::Object(kw.clone());
    }
    let inner = v
        .get("arguments")
        .or_else(|| v.get("params").and_then(|p| p.get("arguments")))
        .or_else(|| v.get("kwargs"))
        .cloned();
    match inner {
        Some(a)
            if v.get("name").is_some()
                || v.get("params").is_some()
                || v.get("tool_name").is_some() =>
        {
            json_or_text(&a)
        }
        _ => v,
    }
}

/// An MCP CallToolResult (`{"content": [...], "structuredContent", "isError", "_meta"}`)
/// made into what the tool returned: the structured content, else the text content (as
/// JSON when it parses). `_meta` is kept beside it for `as_of`. Other values pass through.
pub fn tool_result(v: Value) -> (Value, Option<bool>, Option<Value>) {
    // OpenLLMetry wraps the result once more: {"result": CallToolResult or its text,
    // "is_error": bool}; peel every such wrapper (each is a level of the value, so this
    // ends), the innermost flag winning. Any other object with an `is_error` flag
    // (LlamaIndex's ToolOutput, a tool's own JSON) says so with it and is kept whole.
    // A Gemini FunctionResponse (`{"id", "name", "response"}`: what Google's SDKs send
    // the model back, and what OpenInference records as a Google ADK tool's output): the
    // response is the result.
    let mut v = match v {
        Value::Object(mut o)
            if o.contains_key("response")
                && o.contains_key("name")
                && o.keys().all(|k| {
                    matches!(
                        k.as_str(),
                        "id" | "name" | "response" | "will_continue" | "scheduling" | "parts"
                    )
                }) =>
        {
            o.remove("response").unwrap_or(Value::Null)
        }
        v => v,
    };
    let mut flagged = v.get("is_error").and_then(Value::as_bool);
    while let Value::Object(o) = &v {
        if !(o.contains_key("result") && o.keys().all(|k| k == "result" || k == "is_error")) {
            break;
        }
        v = json_or_text(&o["result"]);
        if let Some(e) = v.get("is_error").and_then(Value::as_bool) {
            flagged = Some(e);
        }
    }
    // A LangChain ToolMessage (`{"type": "tool", "data": {...}}` as messages_to_dict
    // writes it, or the message's own fields): its content (or the MCP structured content
    // kept as its artifact), and `status: error`.
    if let Some(d) = tool_message(&v) {
        let error = d
            .get("status")
            .and_then(Value::as_str)
            .map(|s| s == "error");
        let structured = d
            .get("artifact")
            .and_then(|a| a.get("structured_content"))
            .filter(|s| !s.is_null())
            .cloned();
        let content = d.get("content").cloned().unwrap_or(Value::Null);
        let value = structured.unwrap_or_else(|| match content {
            Value::String(t) => json_or_text(&Value::String(t)),
            other => call_result(other).0,
        });
        return (value, error.or(flagged), None);
    }
    // A framework's record of a tool's output that keeps what the tool returned under
    // `raw_output` beside its own rendering of it (LlamaIndex's ToolOutput: `blocks` or
    // `content` with `str(CallToolResult)`, `tool_name`, `raw_input`, `is_error`): the
    // raw output is the result; an error on either level is an error.
    if let Value::Object(o) = &v
        && o.contains_key("raw_output")
        && o.contains_key("tool_name")
    {
        let raw = o["raw_output"].clone();
        let (v, e, m) = call_result(json_or_text(&raw));
        let error = match (e, flagged) {
            (Some(a), Some(b)) => Some(a || b),
            (a, b) => a.or(b),
        };
        return (v, error, m);
    }
    let (v, e, m) = call_result(v);
    (v, e.or(flagged), m)
}

/// The fields of a LangChain ToolMessage, if `v` is one.
fn tool_message(v: &Value) -> Option<&Map<String, Value>> {
    // OpenLLMetry wraps the tool's output as `{"output": …, "kwargs": …}`; LangChain's
    // own serialisation is `{"lc": 1, "type": "constructor", "kwargs": {fields}}`.
    let v = match v.get("output") {
        Some(inner) if v.get("lc").is_none() => inner,
        _ => v,
    };
    let d = match (v.get("data"), v.get("kwargs")) {
        (Some(d), _) if v.get("type").and_then(Value::as_str) == Some("tool") => d,
        (_, Some(k)) if v.get("lc").is_some() => k,
        _ => v,
    };
    let o = d.as_object()?;
    (o.contains_key("tool_call_id") && o.contains_key("content")).then_some(o)
}

/// The model's call id a tool's result names (a LangChain ToolMessage's `tool_call_id`).
fn result_call_id(v: &Value) -> Option<String> {
    text(tool_message(v)?.get("tool_call_id"))
}

/// A value that may be an MCP CallToolResult, its content blocks, or anything else.
fn call_result(v: Value) -> (Value, Option<bool>, Option<Value>) {
    // MCP content blocks on their own (openai-agents' tool output): their text.
    if let Some(text) = content_text(&v) {
        return (text, None, None);
    }
    match mcp_result::read(&v) {
        Some(r) => (r.value, r.is_error, r.meta),
        None => (v, None, None),
    }
}

/// The text of one MCP text content block, or of a list of them (as JSON when it parses).
fn content_text(v: &Value) -> Option<Value> {
    // MCP's `{type: text, text}` (with its optional keys), and Bedrock Converse's `{text}`
    // that Strands writes for a tool's result.
    let block = |b: &Value| -> Option<String> {
        let o = b.as_object()?;
        // LangChain's standard blocks add an `id`.
        let typed = o.get("type").and_then(Value::as_str) == Some("text")
            && o.keys()
                .all(|k| matches!(k.as_str(), "type" | "text" | "annotations" | "_meta" | "id"));
        let bare = o.len() == 1 && o.contains_key("text");
        (typed || bare)
            .then(|| o.get("text")?.as_str().map(str::to_string))
            .flatten()
    };
    let texts: Vec<String> = match v {
        Value::Array(a) if !a.is_empty() => a.iter().map(block).collect::<Option<_>>()?,
        Value::Object(_) => vec![block(v)?],
        _ => return None,
    };
    Some(match texts.as_slice() {
        [one] => json_or_text(&Value::String(one.clone())),
        many => Value::String(many.join("\n")),
    })
}

/// OpenTelemetry GenAI content carried in span events, lifted onto the span's attributes
/// (what the span sets itself wins), so one reading serves both places:
/// - `gen_ai.client.inference.operation.details` (semantic conventions ≥ 1.37): its
///   attributes (`gen_ai.input.messages`, `gen_ai.output.messages`, …) as they are;
/// - the per-message events of 1.28–1.36 (`gen_ai.system.message`, `gen_ai.user.message`,
///   `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`): on a model span
///   they become `gen_ai.input.messages` (in event order) and `gen_ai.output.messages`;
///   on an `execute_tool` span the tool message's content is the call's arguments and the
///   choice's message its result.
pub fn lift_events(s: &mut Span) {
    if s.events.is_empty() {
        return;
    }
    let events = std::mem::take(&mut s.events);
    let mut lifted = Map::new();
    for e in events
        .iter()
        .filter(|e| e.name == "gen_ai.client.inference.operation.details")
    {
        for (k, v) in &e.attrs {
            lifted.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let tool_span = s.text("gen_ai.operation.name").as_deref() == Some("execute_tool")
        || lifted.get("gen_ai.operation.name").and_then(Value::as_str) == Some("execute_tool");
    let body = |e: &Event, k: &str| e.attrs.get(k).filter(|v| !v.is_null()).map(json_or_text);
    let mut input = Vec::new();
    let mut output = Vec::new();
    for e in &events {
        let role = match e.name.as_str() {
            "gen_ai.system.message" => "system",
            "gen_ai.user.message" => "user",
            "gen_ai.assistant.message" => "assistant",
            "gen_ai.tool.message" => "tool",
            "gen_ai.choice" => "choice",
            _ => continue,
        };
        if tool_span {
            let (key, field) = match role {
                "tool" => ("gen_ai.tool.call.arguments", "content"),
                "choice" => ("gen_ai.tool.call.result", "message"),
                _ => continue,
            };
            if let Some(v) = body(e, field).or_else(|| body(e, "content")) {
                lifted.entry(key.to_string()).or_insert(v);
            }
            continue;
        }
        if role == "choice" {
            let m = body(e, "message").or_else(|| body(e, "content"));
            let mut parts = m.as_ref().map(content_parts).unwrap_or_default();
            if let Some(calls) = body(e, "tool_calls") {
                parts.extend(openai_tool_calls(&calls));
            }
            output.push(serde_json::json!({"role": "assistant", "parts": parts}));
            continue;
        }
        let content = body(e, "content");
        let mut parts = match (role, content, text(e.attrs.get("id"))) {
            // A tool message that is not content blocks is the response to call `id`.
            ("tool", Some(c), Some(id)) if !is_blocks(&c) => {
                vec![serde_json::json!({"type": "tool_call_response", "id": id, "response": c})]
            }
            (_, Some(c), _) => content_parts(&c),
            (_, None, _) => Vec::new(),
        };
        if let Some(calls) = body(e, "tool_calls") {
            parts.extend(openai_tool_calls(&calls));
        }
        input.push(serde_json::json!({"role": role, "parts": parts}));
    }
    if !input.is_empty() {
        lifted
            .entry("gen_ai.input.messages".to_string())
            .or_insert(Value::Array(input));
    }
    if !output.is_empty() {
        lifted
            .entry("gen_ai.output.messages".to_string())
            .or_insert(Value::Array(output));
    }
    for (k, v) in lifted {
        s.attrs.entry(k).or_insert(v);
    }
    s.events = events;
}

/// MLflow Tracing's own convention (`mlflow.spanType`, `mlflow.spanInputs`,
/// `mlflow.spanOutputs`, `mlflow.chat.tokenUsage`, `mlflow.llm.model`) read as the GenAI
/// attributes it stands for, the reverse of MLflow's own mapping: a TOOL span's inputs are
/// the call's arguments and its outputs the result; a CHAT_MODEL or LLM span's inputs and
/// outputs are the provider's request and response (OpenAI chat completions and
/// responses, Anthropic messages), whose messages become GenAI messages; an AGENT span is
/// an agent run. The span's own GenAI attributes win.
pub fn lift_mlflow(s: &mut Span) {
    use serde_json::json;
    // MLflow writes every attribute JSON-encoded (`"\"TOOL\""`).
    let get = |k: &str| s.get(k).map(json_or_text).filter(|v| !v.is_null());
    let Some(kind) = text(get("mlflow.spanType").as_ref()) else {
        return;
    };
    let mut lifted = Map::new();
    match kind.to_ascii_uppercase().as_str() {
        "TOOL" => {
            lifted.insert("gen_ai.operation.name".into(), json!("execute_tool"));
            lifted.insert("gen_ai.tool.name".into(), json!(s.name));
            if let Some(v) = get("mlflow.spanInputs") {
                lifted.insert("gen_ai.tool.call.arguments".into(), v);
            }
            if let Some(v) = get("mlflow.spanOutputs") {
                lifted.insert("gen_ai.tool.call.result".into(), v);
            }
        }
        "CHAT_MODEL" | "LLM" => {
            lifted.insert("gen_ai.operation.name".into(), json!("chat"));
            if let Some(m) = text(get("mlflow.llm.model").as_ref()) {
                lifted.insert("gen_ai.request.model".into(), json!(m));
            }
            if let Some(u) = get("mlflow.chat.tokenUsage") {
                for (from, to) in [
                    ("input_tokens", "gen_ai.usage.input_tokens"),
                    ("output_tokens", "gen_ai.usage.output_tokens"),
                ] {
                    if let Some(n) = u.get(from).filter(|n| n.is_number()) {
                        lifted.insert(to.into(), n.clone());
                    }
                }
            }
            if let Some(input) = get("mlflow.spanInputs") {
                let msgs = request_messages(&input);
                if !msgs.is_empty() {
                    lifted.insert("gen_ai.input.messages".into(), Value::Array(msgs));
                }
            }
            if let Some(output) = get("mlflow.spanOutputs") {
                let msgs = response_messages(&output);
                if !msgs.is_empty() {
                    lifted.insert("gen_ai.output.messages".into(), Value::Array(msgs));
                }
            }
        }
        "AGENT" => {
            lifted.insert("gen_ai.operation.name".into(), json!("invoke_agent"));
        }
        _ => {}
    }
    for (k, v) in lifted {
        s.attrs.entry(k).or_insert(v);
    }
}

/// The Vercel AI SDK's classic telemetry (`ai.*` spans: `ai.operationId`), read as the
/// GenAI attributes it stands for: `ai.toolCall` is an `execute_tool` span
/// (`ai.toolCall.name`, `.id`, `.args`, `.result`); `ai.*.doGenerate` / `.doStream` is a
/// model call (`ai.prompt.messages` in the SDK's message format, `ai.response.text` and
/// `.toolCalls`, `ai.usage.inputTokens` / `outputTokens` or the older `promptTokens` /
/// `completionTokens`, `ai.response.model`, `ai.model.id`); `ai.generateText` /
/// `ai.streamText` / `ai.generateObject` / `ai.streamObject` is the agent run. The span's
/// own GenAI attributes win.
pub fn lift_vercel_ai(s: &mut Span) {
    use serde_json::json;
    let Some(op) = s.text("ai.operationId") else {
        return;
    };
    let get = |k: &str| s.get(k).map(json_or_text).filter(|v| !v.is_null());
    let mut lifted = Map::new();
    if op == "ai.toolCall" {
        lifted.insert("gen_ai.operation.name".into(), json!("execute_tool"));
        for (from, to) in [
            ("ai.toolCall.name", "gen_ai.tool.name"),
            ("ai.toolCall.id", "gen_ai.tool.call.id"),
        ] {
            if let Some(v) = s.text(from) {
                lifted.insert(to.into(), json!(v));
            }
        }
        if let Some(v) = get("ai.toolCall.args") {
            lifted.insert("gen_ai.tool.call.arguments".into(), v);
        }
        if let Some(v) = get("ai.toolCall.result") {
            lifted.insert("gen_ai.tool.call.result".into(), v);
        }
    } else if op.ends_with(".doGenerate") || op.ends_with(".doStream") {
        lifted.insert("gen_ai.operation.name".into(), json!("chat"));
        if let Some(m) = s.first_text(&["ai.response.model", "ai.model.id"]) {
            lifted.insert("gen_ai.request.model".into(), json!(m));
        }
        for (from, to) in [
            (
                ["ai.usage.inputTokens", "ai.usage.promptTokens"],
                "gen_ai.usage.input_tokens",
            ),
            (
                ["ai.usage.outputTokens", "ai.usage.completionTokens"],
                "gen_ai.usage.output_tokens",
            ),
        ] {
            if let Some(n) = from.iter().find_map(|k| s.get(k)) {
                lifted.insert(to.into(), n.clone());
            }
        }
        if let Some(Value::Array(msgs)) = get("ai.prompt.messages") {
            let msgs: Vec<Value> = msgs.iter().filter_map(chat_message).collect();
            lifted.insert("gen_ai.input.messages".into(), Value::Array(msgs));
        }
        let mut parts = Vec::new();
        if let Some(t) = s.text("ai.response.text") {
            parts.push(json!({"type": "text", "content": t}));
        }
        if let Some(Value::Array(calls)) = get("ai.response.toolCalls") {
            parts.extend(calls.iter().filter_map(|c| {
                block_part(&json!({"type": "tool-call", "toolCallId": c.get("toolCallId"),
                    "toolName": c.get("toolName")?, "input": c.get("input").or_else(|| c.get("args"))}))
            }));
        }
        if !parts.is_empty() {
            lifted.insert(
                "gen_ai.output.messages".into(),
                json!([{"role": "assistant", "parts": parts}]),
            );
        }
    } else if matches!(
        op.as_str(),
        "ai.generateText" | "ai.streamText" | "ai.generateObject" | "ai.streamObject"
    ) {
        lifted.insert("gen_ai.operation.name".into(), json!("invoke_agent"));
    }
    for (k, v) in lifted {
        s.attrs.entry(k).or_insert(v);
    }
}

/// A chat message as the providers' APIs write it (`{role, content, tool_calls,
/// tool_call_id}`) as a GenAI message.
fn chat_message(m: &Value) -> Option<Value> {
    let role = m.get("role").and_then(Value::as_str)?;
    let mut parts = content_parts(m);
    if role == "tool"
        && let Some(id) = m.get("tool_call_id")
    {
        let response = m.get("content").cloned().unwrap_or(Value::Null);
        parts =
            vec![serde_json::json!({"type": "tool_call_response", "id": id, "response": response})];
    }
    Some(serde_json::json!({"role": role, "parts": parts}))
}

/// The messages of a model request: `messages` (OpenAI chat, Anthropic, with its
/// `system`), or the Responses API's `input` (a string, or items).
fn request_messages(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(sys) = v.get("system").filter(|s| !s.is_null()) {
        out.push(serde_json::json!({"role": "system", "parts": content_parts(sys)}));
    }
    if let Some(msgs) = v.get("messages").and_then(Value::as_array) {
        out.extend(msgs.iter().filter_map(chat_message));
    }
    match v.get("input") {
        Some(Value::String(t)) => {
            out.push(serde_json::json!({"role": "user", "parts": content_parts(&Value::String(t.clone()))}));
        }
        Some(Value::Array(items)) => out.extend(items.iter().filter_map(|i| {
            if i.get("role").is_some() {
                chat_message(i)
            } else {
                let role = if i.get("type").and_then(Value::as_str) == Some("function_call") {
                    "assistant"
                } else {
                    "tool"
                };
                Some(serde_json::json!({"role": role, "parts": content_parts(&Value::Array(vec![i.clone()]))}))
            }
        })),
        _ => {}
    }
    out
}

/// The reply of a model response: OpenAI chat completions' `choices[].message`, the
/// Responses API's `output` items, an Anthropic message (`{role, content: [blocks]}`), or
/// plain text.
fn response_messages(v: &Value) -> Vec<Value> {
    if let Some(choices) = v.get("choices").and_then(Value::as_array) {
        return choices
            .iter()
            .filter_map(|c| c.get("message").and_then(chat_message))
            .collect();
    }
    if let Some(items) = v.get("output").and_then(Value::as_array) {
        let mut parts = Vec::new();
        for i in items {
            match i.get("type").and_then(Value::as_str) {
                Some("message") => {
                    parts.extend(i.get("content").map(content_parts).unwrap_or_default())
                }
                _ => parts.extend(block_part(i)),
            }
        }
        return vec![serde_json::json!({"role": "assistant", "parts": parts})];
    }
    if v.get("role").is_some() {
        return chat_message(v).into_iter().collect();
    }
    if let Value::String(t) = v {
        return vec![
            serde_json::json!({"role": "assistant", "parts": content_parts(&Value::String(t.clone()))}),
        ];
    }
    Vec::new()
}

/// A list of content blocks (as providers and MCP write them), not a plain value.
fn is_blocks(v: &Value) -> bool {
    v.as_array()
        .is_some_and(|a| !a.is_empty() && a.iter().all(|b| block_part(b).is_some()))
}

/// A message's content as GenAI parts (`{type, content}`, `{type: tool_call, id, name,
/// arguments}`, `{type: tool_call_response, id, response}`): plain text, or content
/// blocks in the shapes the providers' APIs use (Bedrock Converse's `{text}`,
/// `{toolUse}`, `{toolResult}`, `{reasoningContent}`; Anthropic's and OpenAI's typed
/// blocks), or an older GenAI message body `{content, tool_calls}`.
fn content_parts(v: &Value) -> Vec<Value> {
    match v {
        Value::String(t) => vec![serde_json::json!({"type": "text", "content": t})],
        Value::Array(a) => a.iter().filter_map(block_part).collect(),
        Value::Object(o) if o.contains_key("content") || o.contains_key("tool_calls") => {
            let mut parts = o.get("content").map(content_parts).unwrap_or_default();
            if let Some(calls) = o.get("tool_calls") {
                parts.extend(openai_tool_calls(calls));
            }
            parts
        }
        Value::Object(_) => block_part(v).into_iter().collect(),
        _ => Vec::new(),
    }
}

fn block_part(b: &Value) -> Option<Value> {
    use serde_json::json;
    let o = b.as_object()?;
    let typed = o.get("type").and_then(Value::as_str);
    Some(match typed {
        Some("text" | "input_text" | "output_text") => {
            json!({"type": "text", "content": o.get("text").or_else(|| o.get("content"))?})
        }
        Some("thinking" | "reasoning") => json!({"type": "reasoning",
            "content": o.get("thinking").or_else(|| o.get("text")).or_else(|| o.get("content"))?}),
        Some("tool_use" | "tool_call" | "function_call") => json!({"type": "tool_call",
            "id": o.get("id").or_else(|| o.get("call_id")), "name": o.get("name")?,
            "arguments": o.get("input").or_else(|| o.get("arguments"))}),
        // The Vercel AI SDK's message parts (`input`/`output` since v5, `args`/`result`
        // before).
        Some("tool-call") => json!({"type": "tool_call", "id": o.get("toolCallId"),
            "name": o.get("toolName")?,
            "arguments": o.get("input").or_else(|| o.get("args")).map(json_or_text)}),
        Some("tool-result") => {
            let out = o.get("output");
            let typed = out.and_then(|v| v.get("type")).and_then(Value::as_str);
            let response = match typed {
                Some(_) => out.and_then(|v| v.get("value")),
                None => out.or_else(|| o.get("result")),
            };
            json!({"type": "tool_call_response", "id": o.get("toolCallId"), "response": response,
                "is_error": typed.is_some_and(|t| t.starts_with("error"))})
        }
        Some("tool_result" | "tool_call_response" | "function_call_output") => json!({
            "type": "tool_call_response",
            "id": o.get("tool_use_id").or_else(|| o.get("id")).or_else(|| o.get("call_id")),
            "response": o.get("content").or_else(|| o.get("response")).or_else(|| o.get("output"))}),
        Some(_) => return None,
        None => {
            if let Some(t) = o.get("text").filter(|_| o.len() == 1) {
                json!({"type": "text", "content": t})
            } else if let Some(u) = o.get("toolUse") {
                json!({"type": "tool_call", "id": u.get("toolUseId"), "name": u.get("name")?,
                    "arguments": u.get("input")})
            } else if let Some(r) = o.get("toolResult") {
                json!({"type": "tool_call_response", "id": r.get("toolUseId"),
                    "response": r.get("content"),
                    "is_error": r.get("status").and_then(Value::as_str) == Some("error")})
            } else if let Some(r) = o.get("reasoningContent") {
                json!({"type": "reasoning",
                    "content": r.pointer("/reasoningText/text").or_else(|| r.get("text"))?})
            } else {
                return None;
            }
        }
    })
}

/// OpenAI's `tool_calls` (`[{id, type: function, function: {name, arguments}}]`) as parts.
fn openai_tool_calls(v: &Value) -> Vec<Value> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let f = c.get("function").unwrap_or(c);
            Some(serde_json::json!({"type": "tool_call", "id": c.get("id"),
                "name": f.get("name")?, "arguments": f.get("arguments").map(json_or_text)}))
        })
        .collect()
}

/// Union-find over span indexes.
struct Groups(Vec<usize>);

impl Groups {
    fn find(&mut self, i: usize) -> usize {
        let mut r = i;
        while self.0[r] != r {
            r = self.0[r];
        }
        let mut i = i;
        while self.0[i] != r {
            let next = self.0[i];
            self.0[i] = r;
            i = next;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            // The smaller index (earlier start) stays the root.
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            self.0[hi] = lo;
        }
    }
}

/// How one input's spans were used, for the per-input summary.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub spans: usize,
    pub tool_spans: usize,
    pub calls: usize,
    pub model_spans: usize,
    /// Calls that were an agent's way to answer (its output), made answer steps.
    pub answer_tools: usize,
    /// Span names (their first word) skipped, with counts.
    pub skipped: BTreeMap<String, usize>,
    /// Attribute keys seen, for the message when nothing could be used.
    pub keys: BTreeMap<String, usize>,
}

/// The spans' calls: which spans describe one logical call or model turn (`groups`), each
/// span's parent, role and depth below its trace's root.
struct Grouped {
    groups: Groups,
    parents: Vec<Option<usize>>,
    depth: Vec<usize>,
    roles: Vec<Role>,
}

/// Groups `spans` (sorted) into calls: nested spans of one role, tool spans naming one
/// call id, and a server span whose context did not propagate with the client span that
/// holds it.
fn group(spans: &[Span]) -> Grouped {
    let n = spans.len();
    let index: HashMap<(&str, &str), usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.trace_id.as_str(), s.span_id.as_str()), i))
        .collect();
    let parents: Vec<Option<usize>> = spans
        .iter()
        .map(|s| {
            (!s.parent_id.is_empty())
                .then(|| {
                    index
                        .get(&(s.trace_id.as_str(), s.parent_id.as_str()))
                        .copied()
                })
                .flatten()
        })
        .collect();
    let parent = |i: usize| parents[i];
    let roles: Vec<Role> = spans.iter().map(role).collect();
    let names: Vec<Option<String>> = spans
        .iter()
        .zip(&roles)
        .map(|(s, r)| (*r == Role::Tool).then(|| tool_name(s)).flatten())
        .collect();
    // Nested spans of one role describe one thing (the agent's execute_tool span, the MCP
    // client span inside it, the server span inside that): each joins its nearest
    // ancestor of the same role, unless both name different tools (a tool that calls
    // another tool makes two calls). `depth` orders a call's spans from the agent outward.
    let mut groups = Groups((0..n).collect());
    let mut depth = vec![0usize; n];
    for i in 0..n {
        let mut joined = roles[i] == Role::Other;
        let mut p = parent(i);
        while let Some(j) = p {
            depth[i] += 1;
            if depth[i] > n {
                break; // a parent cycle in bad input
            }
            if !joined && roles[j] == roles[i] {
                joined = true;
                let same_tool = match (&names[i], &names[j]) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                };
                if same_tool {
                    groups.union(i, j);
                }
            }
            p = parent(j);
        }
    }
    // Tool spans that name the same model-assigned call id in one trace are one call.
    let mut by_call_id: HashMap<(&str, String), usize> = HashMap::new();
    for i in (0..n).filter(|&i| roles[i] == Role::Tool) {
        if let Some(id) = spans[i].first_text(CALL_ID) {
            match by_call_id.get(&(spans[i].trace_id.as_str(), id.clone())) {
                Some(&j) => groups.union(i, j),
                None => {
                    by_call_id.insert((spans[i].trace_id.as_str(), id), i);
                }
            }
        }
    }
    // A server span whose context did not propagate: the client span with its JSON-RPC
    // id and tool whose time holds it.
    let mut size = vec![0usize; n];
    for i in 0..n {
        size[groups.find(i)] += 1;
    }
    let mut clients: HashMap<(String, Option<&String>), Vec<usize>> = HashMap::new();
    for j in (0..n).filter(|&j| roles[j] == Role::Tool && spans[j].kind == SpanKind::Client) {
        if let Some(id) = spans[j].text("jsonrpc.request.id") {
            clients.entry((id, names[j].as_ref())).or_default().push(j);
        }
    }
    let mut by_tool: HashMap<&String, Vec<usize>> = HashMap::new();
    for j in (0..n).filter(|&j| {
        roles[j] == Role::Tool && spans[j].kind != SpanKind::Server && spans[j].start.is_some()
    }) {
        if let Some(t) = &names[j] {
            by_tool.entry(t).or_default().push(j);
        }
    }
    let skew = chrono::Duration::seconds(1);
    for i in (0..n).filter(|&i| roles[i] == Role::Tool && spans[i].kind == SpanKind::Server) {
        if size[groups.find(i)] != 1 {
            continue;
        }
        let s = &spans[i];
        let holds = |j: usize| match (spans[j].start, spans[j].end, s.start, s.end) {
            (Some(a), Some(b), Some(x), Some(y)) => a - skew <= x && y <= b + skew,
            _ => false,
        };
        let by_id = s.text("jsonrpc.request.id").and_then(|id| {
            clients
                .get(&(id, names[i].as_ref()))
                .and_then(|js| js.iter().copied().find(|&j| holds(j)))
        });
        // A client that records no JSON-RPC id (an uninstrumented MCP client under an
        // agent's tool span): the one tool span of another process that names the same
        // tool and whose time holds it. Two candidates are ambiguous: none is taken.
        let holder = by_id.or_else(|| {
            // Candidates are in start order: look back from the last one that started
            // in time, a bounded way (calls of one tool that overlap one instant are few).
            let cands = names[i].as_ref().and_then(|t| by_tool.get(t))?;
            let x = s.start?;
            let end = cands.partition_point(|&j| spans[j].start.is_some_and(|a| a - skew <= x));
            let near: Vec<usize> = cands[end.saturating_sub(64)..end]
                .iter()
                .copied()
                .filter(|&j| spans[j].trace_id != s.trace_id && holds(j))
                .collect();
            // The calls that hold it on the clock as it is, else within the skew; one
            // call (of however many spans) or none.
            let exact = |j: &usize| match (spans[*j].start, spans[*j].end, s.start, s.end) {
                (Some(a), Some(b), Some(x), Some(y)) => a <= x && y <= b,
                _ => false,
            };
            [true, false].into_iter().find_map(|strict| {
                let mut calls: Vec<usize> = near
                    .iter()
                    .filter(|j| !strict || exact(j))
                    .map(|&j| groups.find(j))
                    .collect();
                calls.sort_unstable();
                calls.dedup();
                (calls.len() == 1).then(|| calls[0])
            })
        });
        if let Some(j) = holder {
            groups.union(i, j);
        }
    }
    Grouped {
        groups,
        parents,
        depth,
        roles,
    }
}

/// Makes steps of spans (all inputs' spans together: an agent and its server may export
/// to different files).
pub fn steps(mut spans: Vec<Span>, opts: &Options, out: &mut Imported) -> Vec<Step> {
    spans.iter_mut().for_each(|s| {
        lift_mlflow(s);
        lift_vercel_ai(s);
        lift_events(s);
    });
    spans.sort_by(|a, b| {
        (a.start, &a.trace_id, &a.span_id).cmp(&(b.start, &b.trace_id, &b.span_id))
    });
    let n = spans.len();
    let c = &mut out.counts;
    c.spans += n;
    for s in &spans {
        for k in s.attrs.keys().filter(|k| !k.starts_with("resource.")) {
            *c.keys.entry(k.clone()).or_default() += 1;
        }
    }
    let Grouped {
        mut groups,
        parents,
        depth,
        roles,
    } = group(&spans);
    let parent = |i: usize| parents[i];

    // Conversations: the OTLP traces that share a conversation id; else one trace each.
    let mut trace_conv: BTreeMap<&str, String> = BTreeMap::new();
    for s in &spans {
        if let Some(conv) = s.first_text(CONVERSATION) {
            trace_conv.entry(s.trace_id.as_str()).or_insert(conv);
        }
    }
    // A server trace merged into a client's call belongs to the client's conversation.
    let mut trace_alias: BTreeMap<&str, &str> = BTreeMap::new();
    for i in 0..n {
        let r = groups.find(i);
        if spans[r].trace_id != spans[i].trace_id {
            trace_alias
                .entry(spans[i].trace_id.as_str())
                .or_insert(spans[r].trace_id.as_str());
        }
    }
    let conv_of = |trace: &str| -> String {
        let t = trace_alias.get(trace).copied().unwrap_or(trace);
        trace_conv
            .get(t)
            .cloned()
            .unwrap_or_else(|| format!("trace:{t}"))
    };
    struct Conv<'a> {
        /// The earliest OTLP trace id: the steps' trace_id.
        trace_id: &'a str,
        traces: Vec<&'a str>,
        key: String,
        spans: Vec<usize>,
    }
    let mut convs: BTreeMap<String, Conv> = BTreeMap::new();
    let mut conv_order: Vec<String> = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        let key = conv_of(&s.trace_id);
        let conv = convs.entry(key.clone()).or_insert_with(|| {
            conv_order.push(key.clone());
            Conv {
                trace_id: trace_alias
                    .get(s.trace_id.as_str())
                    .copied()
                    .unwrap_or(&s.trace_id),
                traces: Vec::new(),
                key: key.clone(),
                spans: Vec::new(),
            }
        });
        if !conv.traces.contains(&s.trace_id.as_str()) {
            conv.traces.push(&s.trace_id);
        }
        conv.spans.push(i);
    }

    let mut steps = Vec::new();
    let mut seq = 0usize;
    for key in &conv_order {
        let conv = &convs[key];
        let conv_first = |ks: &[&str]| conv.spans.iter().find_map(|&i| spans[i].first_text(ks));
        let case_attrs: Vec<&str> = opts
            .case_from
            .iter()
            .map(String::as_str)
            .chain(CASE_ATTRS.iter().copied())
            .collect();
        // A case names its source trace: an OTLP trace id of the conversation, or the
        // conversation id itself.
        let case_id = conv_first(&case_attrs).or_else(|| {
            conv.traces
                .iter()
                .copied()
                .chain(std::iter::once(conv.key.as_str()))
                .find_map(|t| opts.cases_by_trace.get(t).cloned())
        });
        let server = conv_first(SERVER)
            .or_else(|| server_process(conv.spans.iter().map(|&i| &spans[i])))
            .or_else(|| conv.spans.iter().find_map(|&i| server_info(&spans[i])));
        let as_user = conv_first(USER);
        let base = Step {
            trace_id: conv.trace_id.to_string(),
            server: server.clone(),
            case_id: case_id.clone(),
            as_user: as_user.clone(),
            ..Step::default()
        };
        let mut call_groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut model_groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in &conv.spans {
            match roles[i] {
                Role::Tool => call_groups.entry(groups.find(i)).or_default().push(i),
                Role::Model => model_groups.entry(groups.find(i)).or_default().push(i),
                Role::Other => {
                    let word = spans[i]
                        .name
                        .split_whitespace()
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" ");
                    *out.counts.skipped.entry(word).or_default() += 1;
                }
            }
        }
        // A model span that carries no message, reply or token count is a framework's
        // step around a model call (LlamaIndex's `_prepare_chat_with_tools`), not one.
        model_groups.retain(|_, members| {
            let call = members.iter().any(|&i| carries_model_call(&spans[i]));
            if !call {
                for &i in members.iter() {
                    let word = spans[i].name.split_whitespace().next().unwrap_or("");
                    *out.counts.skipped.entry(word.to_string()).or_default() += 1;
                }
            }
            call
        });
        out.counts.tool_spans += call_groups.values().map(Vec::len).sum::<usize>();
        out.counts.calls += call_groups.len();
        out.counts.model_spans += model_groups.len();
        for members in call_groups.values_mut() {
            // The agent's span first, then the spans it contains, outward to the server.
            members.sort_by_key(|&i| (depth[i], spans[i].start));
        }
        // An agent that answers through a tool (smolagents' final_answer, a structured
        // response tool): the last call under an agent span whose result is that agent
        // run's output is the answer, not a call to an MCP server.
        let mut last_under: HashMap<usize, usize> = HashMap::new();
        for (&g, members) in &call_groups {
            let mut p = parent(members[0]);
            let mut hops = 0;
            while let Some(a) = p {
                hops += 1;
                if hops > n {
                    break;
                }
                if is_agent_run(&spans[a]) {
                    let later = last_under.get(&a).is_none_or(|&h| {
                        spans[call_groups[&h][0]].start <= spans[members[0]].start
                    });
                    if later {
                        last_under.insert(a, g);
                    }
                    break;
                }
                p = parent(a);
            }
        }
        let answer_calls: HashMap<usize, String> = last_under
            .iter()
            .filter_map(|(&a, &g)| {
                let output = spans[a].get("output.value").map(json_or_text)?;
                let ms: Vec<&Span> = call_groups[&g].iter().map(|&i| &spans[i]).collect();
                // A call that reached an MCP server is a call, whatever it returned.
                if ms
                    .iter()
                    .any(|s| s.kind == SpanKind::Server || s.get("mcp.method.name").is_some())
                {
                    return None;
                }
                let result = ms
                    .iter()
                    .find_map(|s| RESULT.iter().find_map(|k| s.get(k)))
                    .map(json_or_text)
                    .map(|r| tool_result(r).0)?;
                (result == output).then(|| {
                    let text = match output {
                        Value::String(t) => t,
                        other => other.to_string(),
                    };
                    (g, text)
                })
            })
            .collect();
        // What the model asked for, by call id, for tool spans that record no arguments.
        let mut model_spans: Vec<usize> = model_groups.values().flatten().copied().collect();
        model_spans.sort_by_key(|&i| spans[i].start);
        let requested_list: Vec<(Option<String>, String, Option<Value>)> = model_spans
            .iter()
            .flat_map(|&i| requested_calls(&spans[i]))
            .collect();
        let requested: HashMap<String, Option<Value>> = requested_list
            .iter()
            .filter_map(|(id, _, args)| Some((id.clone()?, args.clone())))
            .collect();
        // The model reply that asked for an answering call becomes the answer (its tokens
        // stay with it); an answering call no reply asked for is an answer step itself.
        let mut answer_by_call_id: HashMap<String, String> = HashMap::new();
        let calls_from = steps.len();
        let mut paired = HashSet::new();
        for (g, members) in &call_groups {
            let ms: Vec<&Span> = members.iter().map(|&i| &spans[i]).collect();
            seq += 4;
            if let Some(text) = answer_calls.get(g) {
                out.counts.answer_tools += 1;
                // The reply that asked for it: by the model's call id, else by tool and
                // arguments (smolagents' final_answer span records no call id).
                let tool = ms.iter().find_map(|s| tool_name(s));
                let args = ms.iter().find_map(|s| {
                    ARGUMENTS
                        .iter()
                        .filter_map(|k| s.get(k))
                        .map(|v| unwrap_arguments(json_or_text(v)))
                        .next()
                });
                let asked = ms.iter().find_map(|s| s.first_text(CALL_ID)).or_else(|| {
                    requested_list
                        .iter()
                        .rev()
                        .find(|(id, name, a)| {
                            id.is_some() && Some(name) == tool.as_ref() && a.is_some() && *a == args
                        })
                        .and_then(|(id, _, _)| id.clone())
                });
                match asked {
                    Some(id) if requested.contains_key(&id) => {
                        answer_by_call_id.insert(id, text.clone());
                    }
                    _ => steps.push(Step {
                        kind: "answer",
                        ts: ms[0].end.or(ms[0].start),
                        seq: seq + 3,
                        text: Some(text.clone()),
                        span_id: Some(ms[0].span_id.clone()),
                        ..base.clone()
                    }),
                }
                continue;
            }
            let asked = Asked {
                by_id: &requested,
                in_order: &requested_list,
                paired: &mut paired,
            };
            call_steps(&ms, &base, seq, asked, &mut steps, out);
        }
        // When each call started, by call id: a reply was written before the calls it
        // asked for began, though its span may end later (ADK's model span stays open
        // while the tools it asked for run).
        let call_start: HashMap<String, DateTime<Utc>> = steps[calls_from..]
            .iter()
            .filter(|s| s.kind == "tool_call")
            .filter_map(|s| Some((s.call_id.clone()?, s.ts?)))
            .collect();
        let mut models: Vec<Vec<usize>> = model_groups.into_values().collect();
        models.sort_by_key(|m| m.iter().map(|&i| spans[i].start).min());
        let mut model_steps = Vec::new();
        let mut users = Vec::new();
        for members in models.iter_mut() {
            members.sort_by_key(|&i| (depth[i], spans[i].start));
            let ms: Vec<&Span> = members.iter().map(|&i| &spans[i]).collect();
            seq += 4;
            let first_call = ms
                .iter()
                .flat_map(|s| requested_calls(s))
                .filter_map(|(id, _, _)| call_start.get(id?.as_str()).copied())
                .min();
            let (mut st, mut asked_tools) =
                model_step(&ms, &base, seq, first_call, &mut users, &mut steps);
            let answered = (!answer_by_call_id.is_empty())
                .then(|| {
                    ms.iter()
                        .flat_map(|s| requested_calls(s))
                        .find_map(|(id, _, _)| answer_by_call_id.get(id.as_ref()?))
                })
                .flatten();
            // Its text, as a reply that asked for nothing: the answer when it is the
            // conversation's last (below); an earlier one is a message the user replied to.
            if let Some(text) = answered {
                st.text = Some(text.clone());
                asked_tools = false;
            }
            model_steps.push((st, asked_tools));
        }
        // The last model output that asked for no tool is the conversation's answer.
        if let Some((st, asked_tools)) = model_steps.last_mut()
            && st.text.is_some()
            && !*asked_tools
        {
            st.kind = "answer";
        }
        if call_groups.is_empty() {
            // No tool spans: the calls the model asked for, with the answers later model
            // inputs carry.
            calls_from_messages(
                models
                    .iter()
                    .map(|m| m.iter().map(|&i| &spans[i]).collect::<Vec<_>>())
                    .collect(),
                &base,
                &mut seq,
                &mut steps,
            );
        }
        steps.extend(model_steps.into_iter().map(|(s, _)| s));
    }
    steps
}

/// A model span with what a model call gives: messages in or out, or token counts.
fn carries_model_call(s: &Span) -> bool {
    s.attrs.keys().any(|k| {
        [
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.usage.",
            "gen_ai.prompt.",
            "gen_ai.completion.",
            "llm.input_messages.",
            "llm.output_messages.",
            "llm.token_count.",
        ]
        .iter()
        .any(|p| k.starts_with(p))
    })
}

/// An agent run's span (OpenInference's AGENT kind, GenAI's `invoke_agent`).
fn is_agent_run(s: &Span) -> bool {
    s.text("openinference.span.kind")
        .is_some_and(|k| k.eq_ignore_ascii_case("AGENT"))
        || s.text("gen_ai.operation.name").as_deref() == Some("invoke_agent")
}

fn tool_name(s: &Span) -> Option<String> {
    s.first_text(TOOL_NAME).or_else(|| tool_from_name(&s.name))
}

/// A server span's process name (its resource's service.name), the MCP server's name
/// when nothing else gives it.
fn server_process<'a>(mut spans: impl Iterator<Item = &'a Span>) -> Option<String> {
    spans.find_map(|s| {
        (s.kind == SpanKind::Server && s.text("mcp.method.name").is_some())
            .then(|| s.text("resource.service.name"))
            .flatten()
    })
}

/// The server's name in a logged `initialize` / `server/discover` answer (OpenLLMetry
/// records the JSON-RPC result on its spans).
fn server_info(s: &Span) -> Option<String> {
    [
        "traceloop.entity.output",
        "mcp.response.value",
        "output.value",
    ]
    .iter()
    .filter_map(|k| s.get(k))
    .map(json_or_text)
    .find_map(|v| {
        v.pointer("/serverInfo/name")
            .or_else(|| v.pointer("/result/serverInfo/name"))
            .and_then(Value::as_str)
            .map(str::to_string)
    })
}

/// The calls a conversation's model replies asked for: by call id, and in order as
/// (id, tool, arguments); `paired`: the ids already given to a tool span.
struct Asked<'a> {
    by_id: &'a HashMap<String, Option<Value>>,
    in_order: &'a [(Option<String>, String, Option<Value>)],
    paired: &'a mut HashSet<String>,
}

fn call_steps(
    ms: &[&Span],
    base: &Step,
    seq: usize,
    requested: Asked,
    steps: &mut Vec<Step>,
    out: &mut Imported,
) {
    let first = |ks: &[&str]| ms.iter().find_map(|s| ks.iter().find_map(|k| s.get(k)));
    let first_text = |ks: &[&str]| ms.iter().find_map(|s| s.first_text(ks));
    let tool = ms.iter().find_map(|s| tool_name(s));
    let raw = first(RESULT).map(json_or_text);
    let recorded = ms
        .iter()
        .find_map(|s| {
            ARGUMENTS
                .iter()
                .filter_map(|k| s.get(k))
                .map(json_or_text)
                .map(unwrap_arguments)
                .find(|v| !looks_like_schema(v))
        })
        // OpenInference's `tool.parameters` holds the schema in most instrumentations;
        // a value that is not one is the arguments (pydantic-ai's processor writes those).
        .or_else(|| {
            first(&["tool.parameters"])
                .map(json_or_text)
                .filter(|v| !looks_like_schema(v))
        });
    // The model's call id: on the span, else in a LangChain tool message result, else,
    // for a tool span that records none (LlamaIndex's FunctionTool span), the first
    // call not yet paired that a reply asked for with the same tool and the same
    // arguments (any, when the span records none).
    let model_call_id = first_text(CALL_ID)
        .or_else(|| raw.as_ref().and_then(result_call_id))
        .or_else(|| {
            let args = recorded.as_ref().filter(|v| v.is_object());
            requested
                .in_order
                .iter()
                .find(|(id, name, a)| {
                    id.as_ref().is_some_and(|id| !requested.paired.contains(id))
                        && Some(name) == tool.as_ref()
                        && args.is_none_or(|r| a.as_ref() == Some(r))
                })
                .and_then(|(id, _, _)| id.clone())
        });
    if let Some(id) = &model_call_id {
        requested.paired.insert(id.clone());
    }
    // Else the agent span's id (JSON-RPC ids repeat across the MCP sessions of one
    // conversation, so they cannot pair a call with its result).
    let call_id = model_call_id
        .clone()
        .unwrap_or_else(|| ms[0].span_id.clone());
    // A tool span that records its input as a bare value (LangChain's single-argument
    // input string) or not at all: the arguments the model asked for under the same id
    // are the call's.
    let asked = model_call_id
        .as_ref()
        .and_then(|id| requested.by_id.get(id))
        .cloned()
        .flatten();
    let arguments = match recorded {
        Some(v) if v.is_object() => Some(v),
        Some(Value::Null) | None => asked,
        other => asked.or(other),
    };
    let (result, result_error, meta) = match raw {
        Some(r) => {
            let (v, e, m) = tool_result(r);
            (Some(v), e, m)
        }
        None => (None, None, None),
    };
    let error =
        ms.iter().any(|s| s.error || s.get("error.type").is_some()) || result_error == Some(true);
    let error_text = ms
        .iter()
        .find_map(|s| s.error_message.clone().or_else(|| s.text("error.type")));
    let as_of = first(&["groundcheck.as_of"])
        .and_then(parse_time)
        .or_else(|| {
            result
                .as_ref()
                .and_then(|r| mcp_result::as_of(r, meta.as_ref()))
        });
    if result.is_none() && !error {
        *out.lacking
            .entry("result on tool calls".into())
            .or_default() += 1;
    }
    if arguments.is_none() {
        *out.lacking
            .entry("arguments on tool calls".into())
            .or_default() += 1;
    }
    let server = first_text(SERVER)
        .or_else(|| server_process(ms.iter().copied()))
        .or(base.server.clone());
    let as_user = first_text(USER).or(base.as_user.clone());
    let start = ms.iter().filter_map(|s| s.start).min();
    // The agent's span ends last: the result is in the agent's hands then.
    let end = ms[0].end.or(start);
    let span_id = Some(ms[0].span_id.clone());
    steps.push(Step {
        kind: "tool_call",
        ts: start,
        seq,
        tool: tool.clone(),
        call_id: Some(call_id.clone()),
        arguments,
        server: server.clone(),
        as_user: as_user.clone(),
        span_id: span_id.clone(),
        ..base.clone()
    });
    steps.push(Step {
        kind: "tool_result",
        ts: end,
        seq: seq + 1,
        tool,
        call_id: Some(call_id),
        is_error: Some(error),
        result: result.or_else(|| error_text.map(|e| serde_json::json!({ "error": e }))),
        as_of,
        server,
        as_user,
        span_id,
        ..base.clone()
    });
}

/// One model call: a user step for each user message its input adds to the
/// conversation (the first call's question, a user's answer to a clarifying question in a
/// later call's input), reasoning steps for thinking parts and for text the model wrote
/// beside tool calls, and the assistant step with the model, tokens and reply. Returns
/// that step (not yet pushed: the last one of a conversation may become its answer) and
/// whether the reply asked for tools. `first_call`: when the first call it asked for
/// started. `users`: the user messages already made steps.
fn model_step(
    ms: &[&Span],
    base: &Step,
    seq: usize,
    first_call: Option<DateTime<Utc>>,
    users: &mut Vec<String>,
    steps: &mut Vec<Step>,
) -> (Step, bool) {
    let first = |ks: &[&str]| ms.iter().find_map(|s| ks.iter().find_map(|k| s.get(k)));
    let first_text = |ks: &[&str]| ms.iter().find_map(|s| s.first_text(ks));
    let start = ms.iter().filter_map(|s| s.start).min();
    let end = match (ms[0].end.or(start), first_call) {
        (Some(e), Some(c)) if c <= e => Some(c - chrono::Duration::nanoseconds(1)),
        (e, _) => e,
    };
    let said = ms
        .iter()
        .map(|s| user_messages(s))
        .find(|u| !u.is_empty())
        .unwrap_or_default();
    let span_id = Some(ms[0].span_id.clone());
    // The user spoke before the reply was written: never after the time the reply is placed
    // at (a span's millisecond start can equal the first call it asked for, which the
    // reply is placed just before: the Vercel AI SDK's classic spans).
    let said_at = match (start, end) {
        (Some(s), Some(e)) if s > e => Some(e),
        (s, _) => s,
    };
    for q in new_turns(users, said) {
        steps.push(Step {
            kind: "user",
            ts: said_at,
            seq,
            text: Some(q),
            span_id: span_id.clone(),
            ..base.clone()
        });
    }
    let reply = ms.iter().find_map(|s| output_message(s));
    let (text, reasoning, asked_tools) = reply.unwrap_or_default();
    for r in reasoning {
        steps.push(Step {
            kind: "reasoning",
            ts: end,
            seq: seq + 1,
            text: Some(r),
            span_id: span_id.clone(),
            ..base.clone()
        });
    }
    (
        Step {
            kind: "assistant",
            ts: end,
            seq: seq + 2,
            span_id: span_id.clone(),
            model: first_text(&[
                "gen_ai.response.model",
                "gen_ai.request.model",
                "llm.model_name",
                "llm.response.model",
            ]),
            input_tokens: int(first(&[
                "gen_ai.usage.input_tokens",
                "llm.token_count.prompt",
                "gen_ai.usage.prompt_tokens",
            ])),
            output_tokens: int(first(&[
                "gen_ai.usage.output_tokens",
                "llm.token_count.completion",
                "gen_ai.usage.completion_tokens",
            ])),
            text,
            ..base.clone()
        },
        asked_tools,
    )
}

/// The model's reply: its text (when it asked for no tool), the reasoning (thinking parts,
/// and text written beside tool calls), and whether it asked for tools.
fn output_message(s: &Span) -> Option<(Option<String>, Vec<String>, bool)> {
    if let Some(msgs) = s.get("gen_ai.output.messages").map(json_or_text)
        && let Some(msgs) = msgs.as_array()
    {
        let mut texts = Vec::new();
        let mut reasoning = Vec::new();
        let mut tools = false;
        for m in msgs
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) != Some("user"))
        {
            for p in m
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let content = p.get("content").and_then(Value::as_str).map(str::to_string);
                match p.get("type").and_then(Value::as_str) {
                    Some("text") => texts.extend(content),
                    Some("reasoning" | "thinking") => reasoning.extend(content),
                    Some("tool_call") => tools = true,
                    _ => {}
                }
            }
            if let Some(c) = m.get("content").and_then(Value::as_str) {
                texts.push(c.to_string());
            }
        }
        if tools {
            reasoning.append(&mut texts);
        }
        return Some((
            (!texts.is_empty()).then(|| texts.join("\n")),
            reasoning,
            tools,
        ));
    }
    let texts = indexed_messages(&s.attrs, "llm.output_messages", "assistant");
    let tools = s
        .attrs
        .keys()
        .any(|k| k.starts_with("llm.output_messages.") && k.contains(".tool_calls."));
    let completion = indexed_prompt_completion(&s.attrs);
    if texts.is_empty() && !tools && completion.is_none() {
        return None;
    }
    let mut texts = if texts.is_empty() {
        completion.into_iter().collect()
    } else {
        texts
    };
    let mut reasoning = Vec::new();
    if tools {
        reasoning.append(&mut texts);
    }
    Some((
        (!texts.is_empty()).then(|| texts.join("\n")),
        reasoning,
        tools,
    ))
}

/// The text of GenAI messages (`[{role, parts: [{type: text, content}]}]` or
/// `[{role, content}]`) with the given role.
fn message_texts(v: Option<&Value>, role: &str) -> Vec<String> {
    let Some(msgs) = v.map(json_or_text) else {
        return Vec::new();
    };
    msgs.as_array()
        .into_iter()
        .flatten()
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
        })
        .collect()
}

/// Every user message of a model call's input, in order, from whichever convention
/// carries them.
fn user_messages(s: &Span) -> Vec<String> {
    let m = message_texts(s.get("gen_ai.input.messages"), "user");
    if !m.is_empty() {
        return m;
    }
    let m = indexed_messages(&s.attrs, "llm.input_messages", "user");
    if !m.is_empty() {
        return m;
    }
    indexed_prompts(&s.attrs, "user")
}

/// The user messages of a model call that are new to the conversation. A call's input
/// usually repeats the history: what extends the messages already seen is new. An input
/// that does not (a framework that sends only the latest turn, or rewrites the history:
/// CrewAI's standalone agent after its crew) adds the messages the turns so far do not
/// already hold as often (a multiset difference, in the input's order).
fn new_turns(seen: &mut Vec<String>, said: Vec<String>) -> Vec<String> {
    let new: Vec<String> = if said.starts_with(seen) {
        said[seen.len()..].to_vec()
    } else {
        let mut have: HashMap<&str, usize> = HashMap::new();
        for t in seen.iter() {
            *have.entry(t.as_str()).or_default() += 1;
        }
        said.into_iter()
            .filter(|t| match have.get_mut(t.as_str()) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            })
            .collect()
    };
    seen.extend(new.iter().cloned());
    new
}

/// OpenInference's indexed messages: `llm.input_messages.0.message.role`, ….
fn indexed_messages(a: &Map<String, Value>, prefix: &str, role: &str) -> Vec<String> {
    let mut found = Vec::new();
    for i in 0..10_000 {
        let r = a.get(&format!("{prefix}.{i}.message.role"));
        if r.is_none() {
            break;
        }
        if r.and_then(Value::as_str) != Some(role) {
            continue;
        }
        // `message.content`, or the typed parts of `message.contents.N.message_content`.
        let c = text(a.get(&format!("{prefix}.{i}.message.content"))).or_else(|| {
            let parts: Vec<String> = (0..10_000)
                .map_while(|j| {
                    let p = format!("{prefix}.{i}.message.contents.{j}.message_content");
                    let t = a.get(&format!("{p}.type"))?;
                    Some(
                        (t == "text")
                            .then(|| text(a.get(&format!("{p}.text"))))
                            .flatten(),
                    )
                })
                .flatten()
                .collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        });
        found.extend(c);
    }
    found
}

/// OpenLLMetry's (older GenAI) indexed prompts: `gen_ai.prompt.0.role` / `.content`.
fn indexed_prompts(a: &Map<String, Value>, role: &str) -> Vec<String> {
    (0..10_000)
        .map_while(|i| {
            let r = a.get(&format!("gen_ai.prompt.{i}.role"))?;
            Some((
                r.clone(),
                a.get(&format!("gen_ai.prompt.{i}.content")).cloned(),
            ))
        })
        .filter(|(r, _)| r.as_str() == Some(role))
        .filter_map(|(_, c)| text(c.as_ref()))
        .collect()
}

fn indexed_prompt_completion(a: &Map<String, Value>) -> Option<String> {
    text(a.get("gen_ai.completion.0.content"))
}

/// The parts of type `kind` of a span's GenAI messages attribute.
fn parts(s: &Span, key: &str, kind: &str) -> Vec<Value> {
    let msgs = s.get(key).map(json_or_text).unwrap_or(Value::Null);
    msgs.as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("parts").and_then(Value::as_array))
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(kind))
        .cloned()
        .collect()
}

/// The calls a model span's reply asked for: (call id, tool, arguments), from
/// `gen_ai.output.messages` tool_call parts or OpenInference's
/// `llm.output_messages.0.message.tool_calls.N`.
fn requested_calls(s: &Span) -> Vec<(Option<String>, String, Option<Value>)> {
    let mut calls = Vec::new();
    for p in parts(s, "gen_ai.output.messages", "tool_call") {
        if let Some(name) = text(p.get("name")) {
            calls.push((
                text(p.get("id")),
                name,
                p.get("arguments").map(json_or_text),
            ));
        }
    }
    for i in 0..10_000 {
        let p = format!("llm.output_messages.0.message.tool_calls.{i}.tool_call");
        let Some(name) = text(s.attrs.get(&format!("{p}.function.name"))) else {
            break;
        };
        calls.push((
            text(s.attrs.get(&format!("{p}.id"))),
            name,
            s.attrs
                .get(&format!("{p}.function.arguments"))
                .map(json_or_text),
        ));
    }
    calls
}

/// Tool calls the model asked for (`gen_ai.output.messages` tool_call parts, or
/// OpenInference's `llm.output_messages.0.message.tool_calls.N`), for a conversation whose
/// instrumentation made no tool spans; results from a later model input's
/// `tool_call_response` part with the same id.
fn calls_from_messages(
    models: Vec<Vec<&Span>>,
    base: &Step,
    seq: &mut usize,
    steps: &mut Vec<Step>,
) {
    let mut responses: HashMap<String, (Value, Option<DateTime<Utc>>)> = HashMap::new();
    for m in &models {
        for s in m {
            for p in parts(s, "gen_ai.input.messages", "tool_call_response") {
                if let Some(id) = text(p.get("id")) {
                    let r = p
                        .get("response")
                        .or_else(|| p.get("result"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    responses.entry(id).or_insert((json_or_text(&r), s.start));
                }
            }
        }
    }
    for m in &models {
        let Some(s) = m.first() else { continue };
        let ts = s.end.or(s.start);
        for (id, name, arguments) in requested_calls(s) {
            *seq += 4;
            let call_id = id.unwrap_or_else(|| format!("{}-{}", s.span_id, seq));
            steps.push(Step {
                kind: "tool_call",
                ts,
                seq: *seq + 3,
                tool: Some(name.clone()),
                call_id: Some(call_id.clone()),
                arguments,
                span_id: Some(s.span_id.clone()),
                ..base.clone()
            });
            if let Some((r, rts)) = responses.get(&call_id) {
                let (result, is_error, meta) = tool_result(r.clone());
                steps.push(Step {
                    kind: "tool_result",
                    ts: *rts,
                    seq: *seq,
                    tool: Some(name),
                    call_id: Some(call_id),
                    is_error: Some(is_error.unwrap_or(false)),
                    as_of: mcp_result::as_of(&result, meta.as_ref()),
                    result: Some(result),
                    span_id: Some(s.span_id.clone()),
                    ..base.clone()
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Event, Span, lift_events, new_turns, tool_result, unwrap_arguments};

    fn event(name: &str, attrs: serde_json::Value) -> Event {
        Event {
            name: name.into(),
            time: None,
            attrs: attrs.as_object().unwrap().clone(),
        }
    }

    #[test]
    fn per_message_events_become_the_messages_of_a_model_span() {
        let mut s = Span {
            attrs: json!({"gen_ai.operation.name": "chat"})
                .as_object()
                .unwrap()
                .clone(),
            events: vec![
                event(
                    "gen_ai.system.message",
                    json!({"content": "[{\"text\": \"Be brief.\"}]"}),
                ),
                event(
                    "gen_ai.user.message",
                    json!({"content": "[{\"text\": \"How many?\"}]"}),
                ),
                event(
                    "gen_ai.assistant.message",
                    json!({"content":
                    "[{\"toolUse\": {\"toolUseId\": \"c1\", \"name\": \"run_sql\", \"input\": {\"sql\": \"SELECT 1\"}}}]"}),
                ),
                event(
                    "gen_ai.tool.message",
                    json!({"content":
                    "[{\"toolResult\": {\"toolUseId\": \"c1\", \"status\": \"success\", \"content\": [{\"text\": \"1\"}]}}]"}),
                ),
                event(
                    "gen_ai.choice",
                    json!({"finish_reason": "end_turn", "message": "[{\"text\": \"One.\"}]"}),
                ),
            ],
            ..Span::default()
        };
        lift_events(&mut s);
        assert_eq!(
            s.attrs["gen_ai.input.messages"],
            json!([
                {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
                {"role": "user", "parts": [{"type": "text", "content": "How many?"}]},
                {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "run_sql",
                    "arguments": {"sql": "SELECT 1"}}]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                    "response": [{"text": "1"}], "is_error": false}]},
            ])
        );
        assert_eq!(
            s.attrs["gen_ai.output.messages"],
            json!([{"role": "assistant", "parts": [{"type": "text", "content": "One."}]}])
        );
    }

    #[test]
    fn tool_events_give_arguments_and_result_and_the_span_wins() {
        let mut s = Span {
            attrs:
                json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.result": "kept"})
                    .as_object()
                    .unwrap()
                    .clone(),
            events: vec![
                event(
                    "gen_ai.tool.message",
                    json!({"role": "tool", "id": "c1", "content": "{\"sql\": \"SELECT 1\"}"}),
                ),
                event(
                    "gen_ai.choice",
                    json!({"id": "c1", "message": "[{\"text\": \"1\"}]"}),
                ),
            ],
            ..Span::default()
        };
        lift_events(&mut s);
        assert_eq!(
            s.attrs["gen_ai.tool.call.arguments"],
            json!({"sql": "SELECT 1"})
        );
        assert_eq!(s.attrs["gen_ai.tool.call.result"], json!("kept"));
        // The details event of the newer conventions: its attributes, as they are.
        let mut s = Span {
            events: vec![event(
                "gen_ai.client.inference.operation.details",
                json!({"gen_ai.input.messages": "[]"}),
            )],
            ..Span::default()
        };
        lift_events(&mut s);
        assert_eq!(s.attrs["gen_ai.input.messages"], json!("[]"));
    }

    #[test]
    fn only_user_messages_new_to_the_conversation_are_turns() {
        let mut seen = Vec::new();
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(new_turns(&mut seen, t(&["Q"])), t(&["Q"]));
        assert_eq!(new_turns(&mut seen, t(&["Q"])), t(&[]));
        assert_eq!(
            new_turns(&mut seen, t(&["Q", "EMEA, fiscal"])),
            t(&["EMEA, fiscal"])
        );
        // A framework that sends the latest turn alone.
        assert_eq!(new_turns(&mut seen, t(&["EMEA, fiscal"])), t(&[]));
        assert_eq!(new_turns(&mut seen, t(&["thanks"])), t(&["thanks"]));
        // A history rewritten by the framework: only what the turns lack is new.
        let mut seen = t(&["Current Task: Q", "Q", "EMEA"]);
        assert_eq!(new_turns(&mut seen, t(&["Q", "EMEA"])), t(&[]));
        assert_eq!(new_turns(&mut seen, t(&["Q", "EMEA", "yes"])), t(&["yes"]));
        // The same answer twice is two turns when the history shows it twice.
        assert_eq!(
            new_turns(
                &mut seen,
                t(&["Current Task: Q", "Q", "EMEA", "yes", "yes"])
            ),
            t(&["yes"])
        );
    }

    #[test]
    fn a_python_call_capture_gives_its_keyword_arguments() {
        let v = json!({"args": [], "sanitize_inputs_outputs": true, "kwargs": {"sql": "SELECT 1"}});
        assert_eq!(unwrap_arguments(v), json!({"sql": "SELECT 1"}));
        // Positional arguments have no names: kept as recorded.
        let v = json!({"args": ["x"], "kwargs": {}});
        assert_eq!(unwrap_arguments(v.clone()), v);
    }

    #[test]
    fn a_langchain_tool_message_gives_its_content_status_and_call_id() {
        let ok = json!({"type": "tool", "data": {"content": [{"type": "text", "text": "{\"n\": 3}", "id": "lc_1"}],
            "tool_call_id": "call_1", "status": "success", "artifact": {"structured_content": {"n": 3}}}});
        assert_eq!(
            tool_result(ok.clone()),
            (json!({"n": 3}), Some(false), None)
        );
        assert_eq!(super::result_call_id(&ok).as_deref(), Some("call_1"));
        let failed =
            json!({"content": "Error: no such table", "tool_call_id": "call_2", "status": "error"});
        assert_eq!(
            tool_result(failed),
            (json!("Error: no such table"), Some(true), None)
        );
    }

    #[test]
    fn an_is_error_key_beside_other_keys_is_a_flag_not_a_wrapper() {
        // LlamaIndex's ToolOutput and pydantic-ai + fastmcp with `"is_error": false`
        // overflowed the stack here.
        let v = json!({"content": "3 rows", "tool_name": "run_sql", "is_error": false});
        assert_eq!(tool_result(v.clone()), (v, Some(false), None));
        let v = json!({"is_error": true});
        assert_eq!(tool_result(v.clone()), (v, Some(true), None));
    }

    #[test]
    fn a_gemini_function_response_gives_its_response() {
        let r = json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"n": 1}, "isError": false});
        let v = json!({"id": "call_a3", "name": "run_sql", "response": r});
        assert_eq!(tool_result(v), (json!({"n": 1}), Some(false), None));
        // ADK wraps a tool's non-object result as {"result": …}.
        let v = json!({"name": "t", "response": {"result": "3 rows"}});
        assert_eq!(tool_result(v), (json!("3 rows"), None, None));
        // A tool's own JSON with other keys stays whole.
        let v = json!({"name": "t", "response": 1, "rows": 2});
        assert_eq!(tool_result(v.clone()), (v, None, None));
    }

    #[test]
    fn a_tool_output_record_gives_the_raw_output_it_keeps() {
        // LlamaIndex's ToolOutput as OpenInference records it: the CallToolResult in the
        // Python SDK's field names under raw_output, its repr in `blocks`.
        let raw = json!({"content": [{"type": "text", "text": "Error calling tool 'run_sql'"}], "is_error": true});
        let v = json!({"blocks": [{"text": "meta=None content=[TextContent(…)] is_error=True"}],
            "tool_name": "run_sql", "raw_input": {"args": [], "kwargs": {"sql": "SELEC 1"}},
            "raw_output": raw, "is_error": false});
        assert_eq!(
            tool_result(v),
            (json!("Error calling tool 'run_sql'"), Some(true), None)
        );
        let ok = json!({"content": [{"type": "text", "text": "{}"}], "structured_content": {"n": 3},
            "meta": {"as_of": "2026-01-02T03:04:05Z"}, "is_error": false});
        let v = json!({"content": "…", "tool_name": "t", "raw_input": {}, "raw_output": ok, "is_error": false});
        assert_eq!(
            tool_result(v),
            (
                json!({"n": 3}),
                Some(false),
                Some(json!({"as_of": "2026-01-02T03:04:05Z"}))
            )
        );
        // A tool that raised: the record's own flag.
        let v = json!({"content": "boom", "tool_name": "t", "raw_input": {}, "raw_output": "boom", "is_error": true});
        assert_eq!(tool_result(v), (json!("boom"), Some(true), None));
    }

    #[test]
    fn wrappers_are_peeled_and_the_innermost_flag_wins() {
        let inner = json!({"content": [{"type": "text", "text": "{\"n\": 3}"}], "isError": false});
        let v = json!({"result": {"result": inner, "is_error": true}, "is_error": false});
        assert_eq!(tool_result(v), (json!({"n": 3}), Some(false), None));
        let v = json!({"result": "plain", "is_error": true});
        assert_eq!(tool_result(v), (json!("plain"), Some(true), None));
    }

    #[test]
    fn the_mapping_is_total_on_hostile_spans() {
        // Structure-aware fuzz: spans of the keys, events and value shapes the mapping
        // reads, values at random (synth::attack::hostile_spans). Nothing may panic, and
        // no result may appear without its call.
        use crate::input::import::{Imported, Options, number};
        for seed in 0..400 {
            let (count, depth) = if seed % 50 == 0 { (400, 30) } else { (30, 6) };
            let spans = crate::synth::attack::spans::hostile_spans(seed, count, depth);
            let mut out = Imported::default();
            let steps = super::steps(spans, &Options::default(), &mut out);
            let calls = steps.iter().filter(|s| s.kind == "tool_call").count();
            let results = steps.iter().filter(|s| s.kind == "tool_result").count();
            assert!(
                results <= calls,
                "seed {seed}: {results} results, {calls} calls"
            );
            number(steps, &Options::default(), &mut out);
        }
    }

    /// A span at `start`..`end` seconds into a minute, in trace `t`.
    fn span_at(id: &str, parent: &str, start: u32, end: u32, attrs: serde_json::Value) -> Span {
        use chrono::TimeZone;
        let at = |s| chrono::Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, s).single();
        Span {
            trace_id: "t".into(),
            span_id: id.into(),
            parent_id: parent.into(),
            start: at(start),
            end: at(end),
            attrs: attrs.as_object().unwrap().clone(),
            ..Span::default()
        }
    }

    fn kinds_and_ids(spans: Vec<Span>) -> Vec<(&'static str, Option<String>)> {
        use crate::input::import::{Imported, Options};
        let mut out = Imported::default();
        let mut steps = super::steps(spans, &Options::default(), &mut out);
        steps.sort_by_key(|s| (s.ts, s.seq));
        steps.iter().map(|s| (s.kind, s.call_id.clone())).collect()
    }

    fn asks(calls: serde_json::Value) -> serde_json::Value {
        json!({"gen_ai.operation.name": "chat",
            "gen_ai.output.messages": [{"role": "assistant", "parts": calls}]})
    }

    #[test]
    fn a_reply_comes_before_the_calls_it_asked_for_though_its_span_ends_later() {
        // ADK: the model span stays open while the tools it asked for run.
        let spans = vec![
            span_at(
                "a",
                "",
                0,
                9,
                json!({"gen_ai.operation.name": "invoke_agent"}),
            ),
            span_at(
                "m",
                "a",
                1,
                8,
                asks(json!([{"type": "tool_call", "id": "c1", "name": "run_sql",
                    "arguments": {"sql": "SELECT 1"}}])),
            ),
            span_at(
                "x",
                "m",
                3,
                4,
                json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "run_sql",
                    "gen_ai.tool.call.id": "c1", "gen_ai.tool.call.result": "1"}),
            ),
        ];
        assert_eq!(
            kinds_and_ids(spans),
            [
                ("assistant", None),
                ("tool_call", Some("c1".into())),
                ("tool_result", Some("c1".into())),
            ]
        );
    }

    #[test]
    fn a_tool_span_without_a_call_id_takes_the_asked_call_with_its_tool_and_arguments() {
        // LlamaIndex: the FunctionTool span records the tool and its input, not the id.
        let tool = |id, start, sql| {
            span_at(
                id,
                "a",
                start,
                start + 1,
                json!({"openinference.span.kind": "TOOL", "tool.name": "run_sql",
                    "input.value": {"sql": sql}, "output.value": "1"}),
            )
        };
        let spans = vec![
            span_at(
                "a",
                "",
                0,
                20,
                json!({"gen_ai.operation.name": "invoke_agent"}),
            ),
            span_at(
                "m",
                "a",
                1,
                2,
                asks(json!([
                    {"type": "tool_call", "id": "c1", "name": "run_sql", "arguments": {"sql": "SELECT 1"}},
                    {"type": "tool_call", "id": "c2", "name": "run_sql", "arguments": {"sql": "SELECT 2"}},
                ])),
            ),
            // Run in the other order than asked: the arguments decide, not the position.
            tool("x2", 3, "SELECT 2"),
            tool("x1", 5, "SELECT 1"),
        ];
        assert_eq!(
            kinds_and_ids(spans),
            [
                ("assistant", None),
                ("tool_call", Some("c2".into())),
                ("tool_result", Some("c2".into())),
                ("tool_call", Some("c1".into())),
                ("tool_result", Some("c1".into())),
            ]
        );
    }

    #[test]
    fn mlflow_spans_read_as_the_genai_attributes_they_stand_for() {
        use super::lift_mlflow;
        let span = |name: &str, attrs: serde_json::Value| Span {
            name: name.into(),
            attrs: attrs.as_object().unwrap().clone(),
            ..Span::default()
        };
        // A TOOL span: named by the span, inputs the arguments, outputs the result.
        let mut t = span(
            "run_sql",
            json!({"mlflow.spanType": "\"TOOL\"", "mlflow.spanInputs": "{\"sql\": \"SELECT 1\"}",
                "mlflow.spanOutputs": "{\"isError\": false}"}),
        );
        lift_mlflow(&mut t);
        assert_eq!(t.attrs["gen_ai.operation.name"], json!("execute_tool"));
        assert_eq!(t.attrs["gen_ai.tool.name"], json!("run_sql"));
        assert_eq!(
            t.attrs["gen_ai.tool.call.arguments"],
            json!({"sql": "SELECT 1"})
        );
        assert_eq!(
            t.attrs["gen_ai.tool.call.result"],
            json!({"isError": false})
        );
        // OpenAI chat: request messages (a tool result by its id), a reply asking for a tool.
        let request = json!({"model": "m", "messages": [
            {"role": "user", "content": "How many?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "run_sql", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "3"}]});
        let response = json!({"choices": [{"message": {"role": "assistant", "content": "Three.",
            "tool_calls": null}}]});
        let mut m = span(
            "Completions",
            json!({"mlflow.spanType": "\"CHAT_MODEL\"", "mlflow.spanInputs": request.to_string(),
                "mlflow.spanOutputs": response.to_string(), "mlflow.llm.model": "\"m\"",
                "mlflow.chat.tokenUsage": "{\"input_tokens\": 5, \"output_tokens\": 2}",
                "gen_ai.request.model": "own"}),
        );
        lift_mlflow(&mut m);
        assert_eq!(m.attrs["gen_ai.operation.name"], json!("chat"));
        assert_eq!(
            m.attrs["gen_ai.request.model"],
            json!("own"),
            "the span's own win"
        );
        assert_eq!(m.attrs["gen_ai.usage.input_tokens"], json!(5));
        assert_eq!(
            m.attrs["gen_ai.input.messages"],
            json!([
                {"role": "user", "parts": [{"type": "text", "content": "How many?"}]},
                {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "run_sql",
                    "arguments": {}}]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "3"}]},
            ])
        );
        assert_eq!(
            m.attrs["gen_ai.output.messages"],
            json!([{"role": "assistant", "parts": [{"type": "text", "content": "Three."}]}])
        );
        // Anthropic (system beside the messages, a tool_use block) and the Responses API.
        let mut a = span(
            "Messages",
            json!({"mlflow.spanType": "LLM",
                "mlflow.spanInputs": {"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]},
                "mlflow.spanOutputs": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "run_sql", "input": {"sql": "SELECT 1"}}]}}),
        );
        lift_mlflow(&mut a);
        assert_eq!(
            a.attrs["gen_ai.input.messages"][0],
            json!({"role": "system", "parts": [{"type": "text", "content": "Be brief."}]})
        );
        assert_eq!(
            a.attrs["gen_ai.output.messages"],
            json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": "t1", "name": "run_sql",
                "arguments": {"sql": "SELECT 1"}}]}])
        );
        let mut r = span(
            "Responses",
            json!({"mlflow.spanType": "CHAT_MODEL", "mlflow.spanInputs": {"input": "Hi"},
                "mlflow.spanOutputs": {"output": [
                    {"type": "message", "content": [{"type": "output_text", "text": "Hello"}]},
                    {"type": "function_call", "call_id": "f1", "name": "run_sql", "arguments": "{}"}]}}),
        );
        lift_mlflow(&mut r);
        assert_eq!(
            r.attrs["gen_ai.input.messages"],
            json!([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}])
        );
        assert_eq!(
            r.attrs["gen_ai.output.messages"],
            json!([{"role": "assistant", "parts": [{"type": "text", "content": "Hello"},
                {"type": "tool_call", "id": "f1", "name": "run_sql", "arguments": "{}"}]}])
        );
    }

    #[test]
    fn vercel_ai_spans_read_as_the_genai_attributes_they_stand_for() {
        use super::lift_vercel_ai;
        let span = |attrs: serde_json::Value| Span {
            attrs: attrs.as_object().unwrap().clone(),
            ..Span::default()
        };
        let mut t = span(
            json!({"ai.operationId": "ai.toolCall", "ai.toolCall.name": "run_sql",
            "ai.toolCall.id": "c1", "ai.toolCall.args": "{\"sql\":\"SELECT 1\"}",
            "ai.toolCall.result": "{\"isError\":true}"}),
        );
        lift_vercel_ai(&mut t);
        assert_eq!(t.attrs["gen_ai.operation.name"], json!("execute_tool"));
        assert_eq!(t.attrs["gen_ai.tool.call.id"], json!("c1"));
        assert_eq!(
            t.attrs["gen_ai.tool.call.arguments"],
            json!({"sql": "SELECT 1"})
        );
        assert_eq!(t.attrs["gen_ai.tool.call.result"], json!({"isError": true}));
        // A model call: the SDK's message parts (v5 `input`/`output`, v4 `args`/`result`),
        // the older token names.
        let prompt = json!([
            {"role": "user", "content": [{"type": "text", "text": "How many?"}]},
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1",
                "toolName": "run_sql", "args": {"sql": "SELEC 1"}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1",
                "toolName": "run_sql", "output": {"type": "error-text", "value": "syntax"}}]},
        ]);
        let mut m = span(json!({"ai.operationId": "ai.streamText.doStream",
            "ai.prompt.messages": prompt.to_string(), "ai.response.text": "",
            "ai.response.toolCalls": "[{\"toolCallId\":\"c2\",\"toolName\":\"run_sql\",\"input\":{\"sql\":\"SELECT 1\"}}]",
            "ai.usage.promptTokens": 7, "ai.usage.completionTokens": 3, "ai.model.id": "m"}));
        lift_vercel_ai(&mut m);
        assert_eq!(m.attrs["gen_ai.operation.name"], json!("chat"));
        assert_eq!(m.attrs["gen_ai.usage.input_tokens"], json!(7));
        assert_eq!(m.attrs["gen_ai.usage.output_tokens"], json!(3));
        assert_eq!(m.attrs["gen_ai.request.model"], json!("m"));
        assert_eq!(
            m.attrs["gen_ai.input.messages"],
            json!([
                {"role": "user", "parts": [{"type": "text", "content": "How many?"}]},
                {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "run_sql",
                    "arguments": {"sql": "SELEC 1"}}]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                    "response": "syntax", "is_error": true}]},
            ])
        );
        assert_eq!(
            m.attrs["gen_ai.output.messages"],
            json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c2", "name": "run_sql",
                "arguments": {"sql": "SELECT 1"}}]}])
        );
        let mut run = span(json!({"ai.operationId": "ai.generateText"}));
        lift_vercel_ai(&mut run);
        assert_eq!(run.attrs["gen_ai.operation.name"], json!("invoke_agent"));
    }

    #[test]
    fn deep_values_do_not_recurse_without_bound() {
        let mut v = json!({"is_error": false});
        for _ in 0..100 {
            v = json!({"result": v, "is_error": true});
        }
        assert_eq!(tool_result(v).1, Some(false));
    }
}
