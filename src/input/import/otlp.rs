//! OTLP traces in every encoding real exporters and the Collector write, decoded with the
//! OpenTelemetry data model crate (`opentelemetry-proto`): a protobuf
//! ExportTraceServiceRequest (what the OTLP/HTTP exporters POST), a stream of them each
//! behind a 4-byte big-endian length (the Collector's file exporter, `format: proto`),
//! OTLP JSON (one document, or JSON lines as the file exporter writes), any of them
//! gzip-compressed.
//!
//! OTLP JSON says hex ids and integer enums; protobuf's own JSON mapping (which some SDKs
//! write) gives base64 ids and enum names. Those are rewritten to the OTLP form before the
//! crate reads them, so both load.

use std::io::Read;

use base64::Engine;
use chrono::DateTime;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use serde_json::{Map, Value};

use super::spans::{Event, Span, SpanKind};
use super::{Input, TraceFile, bad};
use crate::error::{Error, Result};

/// The spans of one input, whatever its encoding.
pub fn read(f: &TraceFile, out: &mut Vec<Span>) -> Result<()> {
    super::held(f, out, read_from)
}

/// Reads an input (`Input::open`) a message or JSON line at a time, handing each one's
/// spans to `each`: a file of any length in the memory of one message.
pub fn read_from(mut input: Input, each: &mut dyn FnMut(Vec<Span>) -> Result<()>) -> Result<()> {
    let display = input.display();
    // The first byte that is not white space says the encoding (JSON starts with { or [;
    // a length-prefixed stream with a zero byte; any other byte starts one message).
    let Some(first) = input.first else {
        return Ok(());
    };
    if matches!(first, b'{' | b'[') {
        return input.documents(&mut |line, doc| read_json(display, line, doc, each));
    }
    if first != 0 {
        // White space is a protobuf byte too (0x0a opens field 1): the message is all of it.
        let bytes = input.rest()?;
        let req = decode_request(&bytes).map_err(|e| {
            Error::Input(format!(
                "{display}: neither OTLP JSON nor an OTLP protobuf ExportTraceServiceRequest: {e}"
            ))
        })?;
        return each(spans(req));
    }
    // The Collector's file exporter: each message behind its 4-byte big-endian length.
    if !input.skipped.is_empty() {
        return Err(Error::Input(format!(
            "{display}: neither OTLP JSON nor OTLP protobuf (white space, then a zero byte)"
        )));
    }
    let mut at = 0usize;
    let mut n = 0;
    let mut body = Vec::new();
    loop {
        let mut len = [0u8; 4];
        let got = input.read_full(&mut len)?;
        if got == 0 {
            return Ok(());
        }
        n += 1;
        if got < 4 {
            return Err(Error::Input(format!(
                "{display}: message {n} at byte {at}: cut short in its 4-byte length (truncated?)"
            )));
        }
        let len = u32::from_be_bytes(len) as usize;
        if len > super::MAX_MESSAGE {
            return Err(Error::Input(format!(
                "{display}: message {n} at byte {at}: {len} bytes announced, over the {} MiB a \
                 message may have",
                super::MAX_MESSAGE >> 20
            )));
        }
        body.resize(len, 0);
        let got = input.read_full(&mut body)?;
        if got < len {
            return Err(Error::Input(format!(
                "{display}: message {n} at byte {at}: {len} bytes announced, {got} there (truncated?)"
            )));
        }
        let req = decode_request(&body).map_err(|e| {
            Error::Input(format!(
                "{display}: message {n} at byte {at}: not an OTLP ExportTraceServiceRequest: {e}"
            ))
        })?;
        each(spans(req))?;
        at += 4 + len;
    }
}

fn spans(req: ExportTraceServiceRequest) -> Vec<Span> {
    let mut out = Vec::new();
    spans_of(req, &mut out);
    out
}

/// gzip data inflated, refused once it passes `limit` bytes (a small body can inflate a
/// thousandfold).
pub fn inflate(bytes: &[u8], limit: usize) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limit.saturating_add(1) as u64)
        .read_to_end(&mut out)
        .map_err(|e| format!("not valid gzip: {e}"))?;
    if out.len() > limit {
        return Err(format!(
            "inflates past {} MiB, the limit of a request body",
            limit >> 20
        ));
    }
    Ok(out)
}

/// How deep OTLP protobuf messages may nest: prost's own default limit, which the
/// `no-recursion-limit` feature Ballista's deep plans need turns off for every prost
/// message in the process. Deeper input is refused before prost sees it.
pub const MAX_DEPTH: usize = 100;

/// A trace export request decoded, after checking that it nests at most `MAX_DEPTH`
/// messages deep (`check_depth`): prost without its limit would recurse once per level
/// and overflow the stack on a crafted body.
pub fn decode_request(bytes: &[u8]) -> std::result::Result<ExportTraceServiceRequest, String> {
    check_depth(bytes)?;
    ExportTraceServiceRequest::decode(bytes).map_err(|e| e.to_string())
}

/// The OTLP trace messages that hold other messages, and which field holds which. Only
/// attributes recurse (AnyValue -> ArrayValue/KeyValueList -> AnyValue ...); the walk
/// follows exactly these fields and skips every other one by its length.
#[derive(Clone, Copy)]
enum Msg {
    Request,
    ResourceSpans,
    Resource,
    ScopeSpans,
    Scope,
    Span,
    Event,
    Link,
    KeyValue,
    AnyValue,
    ArrayValue,
    KeyValueList,
}

impl Msg {
    fn child(self, field: u64) -> Option<Msg> {
        use Msg::*;
        Some(match (self, field) {
            (Request, 1) => ResourceSpans,
            (ResourceSpans, 1) => Resource,
            (ResourceSpans, 2) => ScopeSpans,
            (Resource, 1) => KeyValue,
            (ScopeSpans, 1) => Scope,
            (ScopeSpans, 2) => Span,
            (Scope, 3) => KeyValue,
            (Span, 9) => KeyValue,
            (Span, 11) => Event,
            (Span, 13) => Link,
            (Event, 3) | (Link, 5) | (KeyValueList, 1) => KeyValue,
            (KeyValue, 2) | (ArrayValue, 1) => AnyValue,
            (AnyValue, 5) => ArrayValue,
            (AnyValue, 6) => KeyValueList,
            _ => return None,
        })
    }
}

/// Walks a protobuf ExportTraceServiceRequest without recursion and refuses one whose
/// messages nest deeper than `MAX_DEPTH` (malformed wire data is left to prost to name).
pub fn check_depth(bytes: &[u8]) -> std::result::Result<(), String> {
    fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *b.get(*at)?;
            *at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    // (message, where it ends)
    let mut stack: Vec<(Msg, usize)> = vec![(Msg::Request, bytes.len())];
    let mut at = 0usize;
    while let Some(&(msg, end)) = stack.last() {
        if at >= end {
            stack.pop();
            continue;
        }
        let Some(key) = varint(bytes, &mut at) else {
            return Ok(());
        };
        let skip = match key & 7 {
            0 => varint(bytes, &mut at).map(|_| 0),
            1 => Some(8),
            5 => Some(4),
            2 => {
                let Some(len) = varint(bytes, &mut at).and_then(|l| usize::try_from(l).ok()) else {
                    return Ok(());
                };
                if at.checked_add(len).is_none_or(|e| e > end) {
                    return Ok(());
                }
                if let Some(child) = msg.child(key >> 3) {
                    if stack.len() >= MAX_DEPTH {
                        return Err(format!(
                            "messages nest deeper than {MAX_DEPTH} levels (attribute values \
                             inside values); refused"
                        ));
                    }
                    stack.push((child, at + len));
                    Some(0)
                } else {
                    Some(len)
                }
            }
            // Groups (3, 4) and unknown wire types: not OTLP; prost says what is wrong.
            _ => return Ok(()),
        };
        match skip {
            Some(n) if at + n <= end => at += n,
            _ => return Ok(()),
        }
    }
    Ok(())
}

pub(super) fn read_json(
    display: &str,
    line: usize,
    mut doc: Value,
    each: &mut dyn FnMut(Vec<Span>) -> Result<()>,
) -> Result<()> {
    if doc.get("resourceSpans").is_none() {
        return Err(bad(
            display,
            line,
            1,
            "not an OTLP export (\"resourceSpans\"); Phoenix span exports are read by `import phoenix`",
        ));
    }
    let req = request_from_json(&mut doc)
        .map_err(|e| bad(display, line, 1, format!("not OTLP JSON: {e}")))?;
    each(spans(req))
}

/// An OTLP JSON export request; protobuf's own JSON mapping (base64 ids, enum names) is
/// rewritten first when the OTLP form does not read. The error is the OTLP form's.
pub fn request_from_json(
    doc: &mut Value,
) -> std::result::Result<ExportTraceServiceRequest, serde_json::Error> {
    match serde_json::from_value::<ExportTraceServiceRequest>(doc.clone()) {
        Ok(r) => Ok(r),
        Err(first) => {
            to_otlp_json(doc);
            serde_json::from_value::<ExportTraceServiceRequest>(doc.clone()).map_err(|_| first)
        }
    }
}

/// Protobuf's JSON mapping made into OTLP JSON: base64 ids to hex, enum names to numbers.
fn to_otlp_json(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match (k.as_str(), &*x) {
                    ("traceId" | "spanId" | "parentSpanId", Value::String(s)) => {
                        if let Some(h) = b64_hex(s) {
                            *x = Value::String(h);
                        }
                    }
                    ("kind", Value::String(s)) => {
                        *x = Value::from(SpanKind::from_name(s) as i32);
                    }
                    ("code", Value::String(s)) => {
                        let c = match s.trim_start_matches("STATUS_CODE_") {
                            "OK" => 1,
                            "ERROR" => 2,
                            _ => 0,
                        };
                        *x = Value::from(c);
                    }
                    _ => to_otlp_json(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(to_otlp_json),
        _ => {}
    }
}

fn b64_hex(s: &str) -> Option<String> {
    if !s.is_empty() && s.len().is_multiple_of(2) && s.chars().all(|c| c.is_ascii_hexdigit()) {
        return None; // already hex
    }
    let b = base64::engine::general_purpose::STANDARD.decode(s).ok()?;
    Some(b.iter().map(|x| format!("{x:02x}")).collect())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// An OTLP AnyValue as JSON.
pub fn any_value(v: &AnyValue) -> Value {
    match &v.value {
        None => Value::Null,
        Some(any_value::Value::StringValue(s)) => Value::String(s.clone()),
        Some(any_value::Value::BoolValue(b)) => Value::Bool(*b),
        Some(any_value::Value::IntValue(i)) => Value::from(*i),
        Some(any_value::Value::DoubleValue(d)) => serde_json::Number::from_f64(*d)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        Some(any_value::Value::ArrayValue(a)) => {
            Value::Array(a.values.iter().map(any_value).collect())
        }
        Some(any_value::Value::KvlistValue(kv)) => Value::Object(attributes(&kv.values)),
        Some(any_value::Value::BytesValue(b)) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        // An index into a profiles dictionary: traces carry no such table.
        Some(any_value::Value::StringValueStrindex(_)) => Value::Null,
    }
}

pub fn attributes(kvs: &[KeyValue]) -> Map<String, Value> {
    kvs.iter()
        .map(|kv| {
            (
                kv.key.clone(),
                kv.value.as_ref().map(any_value).unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn time(nanos: u64) -> Option<chrono::DateTime<chrono::Utc>> {
    (nanos > 0).then(|| DateTime::from_timestamp_nanos(nanos as i64))
}

/// The spans of one export request, with their resource's attributes under `resource.`.
pub fn spans_of(req: ExportTraceServiceRequest, out: &mut Vec<Span>) {
    for rs in req.resource_spans {
        let resource = rs
            .resource
            .map(|r| attributes(&r.attributes))
            .unwrap_or_default();
        for ss in rs.scope_spans {
            for s in ss.spans {
                let mut attrs = Map::new();
                for (k, v) in &resource {
                    attrs.insert(format!("resource.{k}"), v.clone());
                }
                attrs.extend(attributes(&s.attributes));
                let status = s.status.as_ref();
                let error = status.is_some_and(|st| st.code == 2);
                let exception = s
                    .events
                    .iter()
                    .find(|e| e.name == "exception")
                    .and_then(|e| {
                        attributes(&e.attributes)
                            .get("exception.message")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    });
                out.push(Span {
                    trace_id: hex(&s.trace_id),
                    span_id: hex(&s.span_id),
                    parent_id: hex(&s.parent_span_id),
                    name: s.name,
                    kind: SpanKind::from_i32(s.kind),
                    start: time(s.start_time_unix_nano),
                    end: time(s.end_time_unix_nano),
                    error,
                    error_message: status
                        .map(|st| st.message.clone())
                        .filter(|m| error && !m.is_empty())
                        .or(exception.filter(|_| error)),
                    attrs,
                    events: s
                        .events
                        .iter()
                        .filter(|e| e.name != "exception")
                        .map(|e| Event {
                            name: e.name.clone(),
                            time: time(e.time_unix_nano),
                            attrs: attributes(&e.attributes),
                        })
                        .collect(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_DEPTH, check_depth, decode_request};
    use crate::synth::attack::deep_request;

    #[test]
    fn shallow_requests_pass_and_deep_ones_are_refused_without_recursion() {
        let ok = deep_request(3);
        check_depth(&ok).unwrap();
        let req = decode_request(&ok).unwrap();
        assert_eq!(req.resource_spans[0].scope_spans[0].spans[0].name, "s");
        // 50,000 kvlists overflowed the stack in prost without its recursion limit.
        let deep = deep_request(50_000);
        let err = decode_request(&deep).unwrap_err();
        assert!(err.contains(&format!("deeper than {MAX_DEPTH}")), "{err}");
        // Six messages down to the first value, three more per level: 31 levels are 99
        // messages and decode; 32 are 102 and are refused.
        let edge = deep_request((MAX_DEPTH - 6) / 3);
        decode_request(&edge).unwrap();
        assert!(check_depth(&deep_request((MAX_DEPTH - 6) / 3 + 1)).is_err());
    }
}
