//! MLflow's trace export: `Trace.to_json()` / `to_dict()`, `mlflow traces get`, and
//! `search_traces(return_type="list")` written a trace a line: `{"info": {...}, "data":
//! {"spans": [...]}}`, as one document, JSON lines or a JSON array, gzip or not.
//!
//! A span is MLflow's dictionary of an OpenTelemetry span: ids base64 (MLflow 3), hex (3.5)
//! or `0x` hex under `context` (MLflow 2), times in nanoseconds, and every attribute value
//! JSON-encoded (`"\"TOOL\""`). The `mlflow.*` attributes stay encoded, as MLflow's own
//! OTLP export sends them; every other one is decoded to the value its producer set (a
//! string, number or boolean; structured values stay JSON text, as OTLP carries them). The
//! trace's tags that are not MLflow's (`service.name`, …) are its resource. The spans then
//! go where OTLP's go, so one call is one step whichever way the trace came.

use base64::Engine;
use chrono::DateTime;
use serde_json::{Map, Value};

use super::spans::{Event, Span, SpanKind};
use super::{Input, TraceFile, bad};
use crate::error::Result;

pub fn read(f: &TraceFile, out: &mut Vec<Span>) -> Result<()> {
    super::held(f, out, read_from)
}

/// Reads an input a document (a trace a line) at a time, handing each one's spans to
/// `each`.
pub fn read_from(input: Input, each: &mut dyn FnMut(Vec<Span>) -> Result<()>) -> Result<()> {
    let display = input.display();
    if input.first.is_none() {
        return Ok(());
    }
    input.documents(&mut |line, doc| {
        let traces = match doc {
            Value::Array(a) => a,
            other => vec![other],
        };
        let mut spans = Vec::new();
        for t in traces {
            trace(display, line, &t, &mut spans)?;
        }
        each(spans)
    })
}

fn trace(file: &str, line: usize, t: &Value, out: &mut Vec<Span>) -> Result<()> {
    let Some(spans) = t.pointer("/data/spans").and_then(Value::as_array) else {
        return Err(bad(
            file,
            line,
            1,
            "not an MLflow trace: no \"data\".\"spans\" (Trace.to_json(), `mlflow traces get`)",
        ));
    };
    let info = t.get("info").unwrap_or(&Value::Null);
    // MLflow 3's `trace_id`, MLflow 2's `request_id`: `tr-` and the OpenTelemetry id.
    let trace_id = info
        .get("trace_id")
        .or_else(|| info.get("request_id"))
        .and_then(Value::as_str)
        .and_then(|s| id(s, 16));
    let resource: Map<String, Value> = info
        .get("tags")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| !k.starts_with("mlflow."))
        .map(|(k, v)| (format!("resource.{k}"), v.clone()))
        .collect();
    for (i, s) in spans.iter().enumerate() {
        let field = |k: &str| format!("span {i}: {k}");
        let get = |k: &str| -> Option<&Value> {
            s.get(k)
                .or_else(|| s.get("context").and_then(|c| c.get(k)))
                .filter(|v| !v.is_null())
        };
        let text = |k: &str| get(k).and_then(Value::as_str).unwrap_or("");
        let span_id = id(text("span_id"), 8).ok_or_else(|| {
            bad(
                file,
                line,
                1,
                format!("{}: not a span id", field("span_id")),
            )
        })?;
        let trace_id = id(text("trace_id"), 16)
            .or_else(|| trace_id.clone())
            .ok_or_else(|| {
                bad(
                    file,
                    line,
                    1,
                    format!("{}: not a trace id", field("trace_id")),
                )
            })?;
        let parent = get("parent_span_id").or_else(|| get("parent_id"));
        let parent_id = match parent.and_then(Value::as_str) {
            None | Some("") => String::new(),
            Some(p) => id(p, 8).ok_or_else(|| {
                bad(
                    file,
                    line,
                    1,
                    format!("{}: not a span id", field("parent_span_id")),
                )
            })?,
        };
        let mut attrs = resource.clone();
        if let Some(a) = s.get("attributes").and_then(Value::as_object) {
            attrs.extend(a.iter().map(|(k, v)| (k.clone(), decoded(k, v))));
        }
        // MLflow 3: {"code": "STATUS_CODE_ERROR", "message"}; MLflow 2: status_code "ERROR".
        let code = s
            .pointer("/status/code")
            .or_else(|| s.get("status_code"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let error = code.ends_with("ERROR");
        let message = s
            .pointer("/status/message")
            .or_else(|| s.get("status_message"))
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        let events: Vec<Event> = s
            .get("events")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                Some(Event {
                    name: e.get("name")?.as_str()?.to_string(),
                    time: e
                        .get("time_unix_nano")
                        .or_else(|| e.get("timestamp"))
                        .and_then(nanos),
                    attrs: e
                        .get("attributes")
                        .and_then(Value::as_object)
                        .map(|a| a.iter().map(|(k, v)| (k.clone(), decoded(k, v))).collect())
                        .unwrap_or_default(),
                })
            })
            .collect();
        let exception = events
            .iter()
            .find(|e| e.name == "exception")
            .and_then(|e| e.attrs.get("exception.message"))
            .and_then(Value::as_str)
            .map(str::to_string);
        out.push(Span {
            trace_id,
            span_id,
            parent_id,
            name: text("name").to_string(),
            kind: SpanKind::Unspecified,
            start: get("start_time_unix_nano")
                .or_else(|| get("start_time"))
                .and_then(nanos),
            end: get("end_time_unix_nano")
                .or_else(|| get("end_time"))
                .and_then(nanos),
            error,
            error_message: message.filter(|_| error).or(exception.filter(|_| error)),
            attrs,
            events: events
                .into_iter()
                .filter(|e| e.name != "exception")
                .collect(),
        });
    }
    Ok(())
}

/// An id of `bytes` bytes as lowercase hex, from MLflow's base64, hex, `0x` hex or
/// `tr-` + hex.
fn id(s: &str, bytes: usize) -> Option<String> {
    let h = s
        .strip_prefix("tr-")
        .or_else(|| s.strip_prefix("0x"))
        .unwrap_or(s);
    if h.len() == 2 * bytes && h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(h.to_ascii_lowercase());
    }
    let raw = base64::engine::general_purpose::STANDARD.decode(s).ok()?;
    (raw.len() == bytes).then(|| raw.iter().map(|b| format!("{b:02x}")).collect())
}

/// Nanoseconds since the epoch, a number or its text.
fn nanos(v: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    let n = match v {
        Value::Number(n) => n.as_i64()?,
        Value::String(s) => s.parse().ok()?,
        _ => return None,
    };
    (n > 0).then(|| DateTime::from_timestamp_nanos(n))
}

/// An attribute as its producer set it: MLflow stores each JSON-encoded. Its own
/// (`mlflow.*`) stay encoded, as its OTLP export sends them; others become the string,
/// number or boolean they encode; anything else stays as it is.
fn decoded(key: &str, v: &Value) -> Value {
    let Value::String(s) = v else {
        return v.clone();
    };
    if key.starts_with("mlflow.") {
        return v.clone();
    }
    match serde_json::from_str::<Value>(s) {
        Ok(x @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => x,
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::{decoded, id};
    use serde_json::json;

    #[test]
    fn ids_in_each_of_mlflows_encodings() {
        assert_eq!(id("0Nb5+b0odOA=", 8).unwrap(), "d0d6f9f9bd2874e0");
        assert_eq!(id("d0d6f9f9bd2874e0", 8).unwrap(), "d0d6f9f9bd2874e0");
        assert_eq!(id("0xD0D6F9F9BD2874E0", 8).unwrap(), "d0d6f9f9bd2874e0");
        assert_eq!(
            id("XT9qqbHx0F5GaOwa0a0xFg==", 16).unwrap(),
            "5d3f6aa9b1f1d05e4668ec1ad1ad3116"
        );
        assert_eq!(
            id("tr-5d3f6aa9b1f1d05e4668ec1ad1ad3116", 16).unwrap(),
            "5d3f6aa9b1f1d05e4668ec1ad1ad3116"
        );
        assert_eq!(id("0Nb5+b0odOA=", 16), None);
        assert_eq!(id("not an id", 8), None);
    }

    #[test]
    fn attributes_decode_except_mlflows_own() {
        assert_eq!(
            decoded("enduser.id", &json!("\"fin.analyst.02\"")),
            json!("fin.analyst.02")
        );
        assert_eq!(
            decoded("gen_ai.usage.input_tokens", &json!("12")),
            json!(12)
        );
        assert_eq!(
            decoded("mlflow.spanType", &json!("\"TOOL\"")),
            json!("\"TOOL\"")
        );
        assert_eq!(
            decoded("gen_ai.input.messages", &json!("[{\"a\":1}]")),
            json!("[{\"a\":1}]")
        );
        assert_eq!(decoded("plain", &json!("not json")), json!("not json"));
    }
}
