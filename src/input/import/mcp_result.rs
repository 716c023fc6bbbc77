//! An MCP tools/call result (`CallToolResult`: `content`, `structuredContent`, `isError`,
//! `_meta`), read one way wherever groundcheck meets one: the importers, the gateway's
//! steps, canaries.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{json_or_text, parse_time};

/// What a tool returned, read out of its CallToolResult.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The structured content; else, when every content block is text, their texts
    /// (joined by newlines) read as JSON where they are JSON; else the content blocks as
    /// they are (images, resources, a mix, none).
    pub value: Value,
    /// `isError`, when the result says.
    pub is_error: Option<bool>,
    /// `_meta` (or `meta`), kept for `as_of`.
    pub meta: Option<Value>,
}

/// `v` read as a CallToolResult, or None when it does not have that shape (a `content`
/// array and no keys but the result's own). The keys are the protocol's (`isError`,
/// `structuredContent`) or the Python SDK model's field names, as a Python producer dumps
/// the model without aliases (`is_error`, `structured_content`: LlamaIndex's raw output).
pub fn read(v: &Value) -> Option<CallResult> {
    let o = v.as_object()?;
    let shaped = o.get("content").is_some_and(Value::is_array)
        && o.keys().all(|k| {
            matches!(
                k.as_str(),
                "content"
                    | "structuredContent"
                    | "structured_content"
                    | "isError"
                    | "is_error"
                    | "_meta"
                    | "resultType"
                    | "result_type"
                    | "meta"
            )
        });
    shaped.then(|| CallResult {
        value: value(v),
        is_error: o
            .get("isError")
            .or_else(|| o.get("is_error"))
            .and_then(Value::as_bool),
        meta: o.get("_meta").or_else(|| o.get("meta")).cloned(),
    })
}

/// The value of a result known to be a tools/call result (what a server answered): see
/// [`CallResult::value`].
pub fn value(result: &Value) -> Value {
    if let Some(s) = result
        .get("structuredContent")
        .or_else(|| result.get("structured_content"))
        .filter(|v| !v.is_null())
    {
        return s.clone();
    }
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let texts: Vec<&str> = content
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    if !content.is_empty() && texts.len() == content.len() {
        return json_or_text(&Value::String(texts.join("\n")));
    }
    Value::Array(content)
}

/// `as_of` wherever real servers put it: the result's `_meta` (`as_of`, or our
/// `groundcheck/as_of`), the result body, its structured content.
pub fn as_of(result: &Value, meta: Option<&Value>) -> Option<DateTime<Utc>> {
    let at = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).and_then(parse_time);
    at(meta, "as_of")
        .or_else(|| at(meta, "groundcheck/as_of"))
        .or_else(|| at(result.get("_meta"), "as_of"))
        .or_else(|| at(Some(result), "as_of"))
        .or_else(|| at(result.get("structuredContent"), "as_of"))
        .or_else(|| at(result.get("metadata"), "as_of"))
}

/// The identity a server says it ran a call as: `credential_subject` (or our
/// `groundcheck/credential_subject`) in the result's `_meta`.
pub fn credential_subject(result: &Value) -> Option<String> {
    let meta = result.get("_meta")?;
    ["credential_subject", "groundcheck/credential_subject"]
        .iter()
        .find_map(|k| meta.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn one_reading_of_a_result() {
        let text = |t: &str| json!({"type": "text", "text": t});
        // Structured content wins; text read as JSON where it is; several texts joined.
        let r = json!({"content": [text("x")], "structuredContent": {"n": 1}, "isError": false});
        assert_eq!(read(&r).unwrap().value, json!({"n": 1}));
        assert_eq!(read(&r).unwrap().is_error, Some(false));
        assert_eq!(value(&json!({"content": [text("[1,2]")]})), json!([1, 2]));
        assert_eq!(
            value(&json!({"content": [text("a"), text("b")]})),
            json!("a\nb")
        );
        // Anything but text stays as the blocks it is.
        let image = json!({"type": "image", "data": "AA==", "mimeType": "image/png"});
        assert_eq!(
            value(&json!({"content": [text("a"), image.clone()]})),
            json!([text("a"), image])
        );
        assert_eq!(value(&json!({"content": []})), json!([]));
        // Not a CallToolResult: a tool's own JSON with a `content` key among others.
        assert_eq!(read(&json!({"content": [], "rows": 2})), None);
        let meta = json!({"as_of": "2026-01-02T03:04:05Z"});
        let r = json!({"content": [], "_meta": meta});
        assert_eq!(
            as_of(&value(&r), read(&r).unwrap().meta.as_ref()).map(|t| t.to_rfc3339()),
            Some("2026-01-02T03:04:05+00:00".into())
        );
        // The Python SDK's field names, as a model dumped without aliases.
        let r = json!({"content": [text("x")], "structured_content": {"n": 2}, "is_error": true, "meta": null});
        let got = read(&r).unwrap();
        assert_eq!((got.value, got.is_error), (json!({"n": 2}), Some(true)));
        let r = json!({"content": [], "_meta": {"groundcheck/credential_subject": "svc-bi"}});
        assert_eq!(credential_subject(&r).as_deref(), Some("svc-bi"));
        assert_eq!(credential_subject(&json!({"content": []})), None);
    }
}
