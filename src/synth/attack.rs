//! Hostile inputs the tests generate (never stored): reproducers of the attacks the
//! decoders must refuse with a sentence, not a crash.

fn varint(mut v: usize, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_len(v: usize) -> usize {
    let mut b = Vec::new();
    varint(v, &mut b);
    b.len()
}

/// An export request whose one span has an attribute value nested `levels` kvlists
/// deep, written outside-in from the sizes (no recursion, linear time).
pub fn deep_request(levels: usize) -> Vec<u8> {
    // (bytes before the child, the child's field tag), outermost first.
    let mut chain: Vec<(Vec<u8>, u8)> = vec![
        (vec![], 0x0a),              // request.resource_spans (1)
        (vec![], 0x12),              // resource_spans.scope_spans (2)
        (vec![], 0x12),              // scope_spans.spans (2)
        (vec![0x2a, 1, b's'], 0x4a), // span: name "s"; attributes (9)
        (vec![0x0a, 1, b'a'], 0x12), // key_value: key "a"; value (2)
    ];
    for _ in 0..levels {
        chain.push((vec![], 0x32)); // any_value.kvlist_value (6)
        chain.push((vec![], 0x0a)); // key_value_list.values (1)
        chain.push((vec![0x0a, 1, b'k'], 0x12)); // key_value: key "k"; value (2)
    }
    let leaf = vec![0x0a, 1, b'x']; // any_value.string_value "x"
    let mut sizes = vec![0usize; chain.len() + 1];
    sizes[chain.len()] = leaf.len();
    for i in (0..chain.len()).rev() {
        let child = sizes[i + 1];
        sizes[i] = chain[i].0.len() + 1 + varint_len(child) + child;
    }
    let mut out = Vec::with_capacity(sizes[0]);
    for (i, (prefix, tag)) in chain.iter().enumerate() {
        out.extend_from_slice(prefix);
        out.push(*tag);
        varint(sizes[i + 1], &mut out);
    }
    out.extend_from_slice(&leaf);
    out
}

/// Hostile spans for the importer's structure-aware fuzz test (spans.rs); test-only, as
/// synth writes projects and reads no importer types.
#[cfg(test)]
pub mod spans {
    /// Span attribute keys the span-to-step mapping reads (docs/importers.md), for
    /// `hostile_spans`.
    const SPAN_KEYS: &[&str] = &[
        "gen_ai.operation.name",
        "openinference.span.kind",
        "mcp.method.name",
        "traceloop.span.kind",
        "llm.request.type",
        "gen_ai.tool.name",
        "tool.name",
        "gen_ai.tool.call.id",
        "tool_call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "input.value",
        "output.value",
        "traceloop.entity.input",
        "traceloop.entity.output",
        "tool.parameters",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "llm.input_messages.0.message.role",
        "llm.input_messages.0.message.content",
        "llm.input_messages.1.message.contents.0.message_content.type",
        "llm.input_messages.1.message.contents.0.message_content.text",
        "llm.output_messages.0.message.role",
        "llm.output_messages.0.message.content",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments",
        "gen_ai.prompt.0.role",
        "gen_ai.prompt.0.content",
        "jsonrpc.request.id",
        "gen_ai.conversation.id",
        "groundcheck.case_id",
        "groundcheck.as_of",
        "enduser.id",
        "server.address",
        "error.type",
        "gen_ai.usage.input_tokens",
        "mlflow.spanType",
        "mlflow.spanInputs",
        "mlflow.spanOutputs",
        "mlflow.chat.tokenUsage",
        "mlflow.llm.model",
        "ai.operationId",
        "ai.toolCall.name",
        "ai.toolCall.id",
        "ai.toolCall.args",
        "ai.toolCall.result",
        "ai.prompt.messages",
        "ai.response.text",
        "ai.response.toolCalls",
        "ai.usage.inputTokens",
    ];
    /// Values of the keys that decide a span's role.
    const ROLE_VALUES: &[&str] = &[
        "execute_tool",
        "chat",
        "invoke_agent",
        "TOOL",
        "LLM",
        "AGENT",
        "CHAT_MODEL",
        "ai.toolCall",
        "ai.generateText.doGenerate",
        "ai.generateText",
        "tool-call",
        "tool-result",
        "tools/call",
        "tool",
        "user",
        "assistant",
        "text",
    ];
    /// Keys inside values: wrappers, content blocks, messages and tool messages.
    const VALUE_KEYS: &[&str] = &[
        "result",
        "is_error",
        "isError",
        "content",
        "structuredContent",
        "_meta",
        "as_of",
        "type",
        "text",
        "data",
        "tool_call_id",
        "status",
        "artifact",
        "structured_content",
        "args",
        "kwargs",
        "arguments",
        "name",
        "params",
        "tool_name",
        "toolUse",
        "toolResult",
        "toolUseId",
        "input",
        "reasoningContent",
        "message",
        "tool_calls",
        "function",
        "id",
        "role",
        "parts",
        "response",
        "toolCallId",
        "toolName",
        "output",
        "value",
        "choices",
        "messages",
        "system",
    ];
    const EVENTS: &[&str] = &[
        "gen_ai.client.inference.operation.details",
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.assistant.message",
        "gen_ai.tool.message",
        "gen_ai.choice",
        "exception",
        "log",
    ];

    fn hostile_value(r: &mut crate::synth::Rng, depth: usize) -> serde_json::Value {
        use serde_json::{Map, Value, json};
        let leaf = depth == 0;
        match r.below(if leaf { 5 } else { 9 }) {
            0 => Value::Null,
            1 => json!(r.chance(50)),
            2 => json!(r.next() as i64 % 2_000_000),
            3 => json!(*r.pick(ROLE_VALUES)),
            4 if r.chance(3) => json!("x".repeat(200_000)),
            4 => json!(
                ["2026-07-02T09:00:00Z", "1,284", "", "not json {", "[]"][r.below(5) as usize]
            ),
            // JSON text of a structure: the importers parse attribute strings.
            5 => json!(hostile_value(r, depth - 1).to_string()),
            6 => Value::Array(
                (0..r.below(4))
                    .map(|_| hostile_value(r, depth - 1))
                    .collect(),
            ),
            _ => {
                let mut o = Map::new();
                for _ in 0..1 + r.below(4) {
                    o.insert(r.pick(VALUE_KEYS).to_string(), hostile_value(r, depth - 1));
                }
                Value::Object(o)
            }
        }
    }

    /// Spans built from the attribute keys, event names and value shapes the span-to-step
    /// mapping reads, with values drawn at random: wrappers inside wrappers (`result`,
    /// `is_error`, `content`, `data`), content blocks, messages, Python-call captures, JSON
    /// text of all of these, 200 KB strings, nesting as deep as a decoder lets through (`depth`),
    /// parents that are missing, repeated or in cycles, times missing or reversed. Seeded:
    /// the same seed, the same spans.
    pub fn hostile_spans(
        seed: u64,
        count: usize,
        depth: usize,
    ) -> Vec<crate::input::import::spans::Span> {
        use crate::input::import::spans::{Event, Span, SpanKind};
        let mut r = crate::synth::Rng::new(seed, 0x5ba7);
        let ids = |r: &mut crate::synth::Rng| format!("{:04x}", r.below(count as u64 + 4));
        let t0 = chrono::DateTime::from_timestamp(1_782_000_000, 0);
        (0..count)
            .map(|_| {
                let mut attrs = serde_json::Map::new();
                for _ in 0..r.below(10) {
                    let k = *r.pick(SPAN_KEYS);
                    let v = if r.chance(40) {
                        serde_json::json!(*r.pick(ROLE_VALUES))
                    } else {
                        hostile_value(&mut r, depth)
                    };
                    attrs.insert(k.to_string(), v);
                }
                let events = (0..r.below(4))
                    .map(|_| Event {
                        name: r.pick(EVENTS).to_string(),
                        time: None,
                        attrs: {
                            let mut a = serde_json::Map::new();
                            for k in ["content", "message", "id", "tool_calls", "role"] {
                                if r.chance(50) {
                                    a.insert(k.to_string(), hostile_value(&mut r, depth));
                                }
                            }
                            a
                        },
                    })
                    .collect();
                let start = t0
                    .filter(|_| r.chance(90))
                    .map(|t| t + chrono::Duration::milliseconds(r.below(5_000) as i64));
                let end =
                    start.map(|t| t + chrono::Duration::milliseconds(r.below(3_000) as i64 - 500));
                Span {
                    trace_id: format!("t{}", r.below(3)),
                    span_id: ids(&mut r),
                    parent_id: if r.chance(20) {
                        String::new()
                    } else {
                        ids(&mut r)
                    },
                    name: [
                        "execute_tool run_sql",
                        "tools/call run_sql",
                        "chat",
                        "x.tool",
                        "",
                    ][r.below(5) as usize]
                        .to_string(),
                    kind: SpanKind::from_i32(r.below(6) as i32),
                    start,
                    end,
                    error: r.chance(10),
                    error_message: None,
                    attrs,
                    events,
                }
            })
            .collect()
    }
}
