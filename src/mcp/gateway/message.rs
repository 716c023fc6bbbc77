//! A JSON-RPC message as the gateway passes it on: the parsed value it reads, checks and
//! records, and the exact text it came as, which is what it sends on (issue #45). Object
//! keys in their order, integers wider than 64 bits, `1E+2`, whitespace and non-ASCII
//! reach the other side as the sender wrote them. A message the gateway builds or changes
//! has no original text and goes out as serde_json writes it; docs/gateway.md lists
//! those.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

#[derive(Debug, Clone)]
pub struct Msg {
    /// The parsed copy: read it, never send it when `raw` is there.
    pub v: Value,
    raw: Option<Arc<str>>,
}

impl Msg {
    /// A message the gateway made (an answer of its own, its own request).
    pub fn built(v: Value) -> Msg {
        Msg { v, raw: None }
    }

    /// `text` as one message, or a batch's messages each with its own bytes. An
    /// element's text is its slice of `text`.
    pub fn parse(text: &str) -> serde_json::Result<(Vec<Msg>, bool)> {
        let v: Value = serde_json::from_str(text)?;
        if !v.is_array() {
            let raw = text.trim_matches(|c: char| c.is_ascii_whitespace());
            return Ok((vec![Msg::original(v, raw)], false));
        }
        let parts: Vec<&RawValue> = serde_json::from_str(text)?;
        let Value::Array(items) = v else {
            unreachable!("checked above")
        };
        let msgs = items
            .into_iter()
            .zip(parts)
            .map(|(v, r)| Msg::original(v, r.get()))
            .collect();
        Ok((msgs, true))
    }

    /// `text` as one message, whatever it holds (a server's line).
    pub fn one(text: &str) -> serde_json::Result<Msg> {
        let v: Value = serde_json::from_str(text)?;
        Ok(Msg::original(
            v,
            text.trim_matches(|c: char| c.is_ascii_whitespace()),
        ))
    }

    fn original(v: Value, raw: &str) -> Msg {
        Msg {
            v,
            raw: Some(Arc::from(raw)),
        }
    }

    /// To change the message: what is sent is then the changed value.
    pub fn value_mut(&mut self) -> &mut Value {
        self.raw = None;
        &mut self.v
    }

    /// Whether it goes out as it came.
    pub fn is_original(&self) -> bool {
        self.raw.is_some()
    }

    /// The text to send: the original bytes, else the value as serde_json writes it.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.raw {
            Some(r) => Cow::Borrowed(r),
            None => Cow::Owned(self.v.to_string()),
        }
    }

    /// The text as one line, for newline-delimited stdio (MCP: a message has no embedded
    /// newline). JSON text has line breaks only between tokens (a string holds them
    /// escaped), so dropping them changes whitespace and nothing else.
    pub fn line(&self) -> Cow<'_, str> {
        let t = self.text();
        if !t.contains(['\n', '\r']) {
            return t;
        }
        Cow::Owned(t.chars().filter(|c| *c != '\n' && *c != '\r').collect())
    }

    /// The text with `"_groundcheck": why` as the object's first member, the rest of its
    /// bytes unchanged: how the message log marks a message the other side never saw.
    pub fn marked(&self, why: &str) -> String {
        let t = self.line();
        let mark = format!("\"_groundcheck\":{}", Value::from(why));
        match t.find('{') {
            Some(i) if self.v.is_object() => {
                let rest = &t[i + 1..];
                let sep = if rest.trim_start().starts_with('}') {
                    ""
                } else {
                    ","
                };
                format!("{}{{{mark}{sep}{rest}", &t[..i])
            }
            _ => t.into_owned(),
        }
    }

    /// The text as a JSON value to embed in a log line, exactly as it goes out.
    pub fn raw_value(&self) -> Box<RawValue> {
        RawValue::from_string(self.line().into_owned())
            .unwrap_or_else(|_| RawValue::from_string("null".into()).expect("null is JSON"))
    }
}

impl From<Value> for Msg {
    fn from(v: Value) -> Msg {
        Msg::built(v)
    }
}

/// Why a message is not JSON-RPC 2.0: `jsonrpc` must be "2.0"; a request or notification
/// has a string `method`; an `id` is a string, an integer or (on a response) null; a
/// response has exactly one of `result` and `error`. Both faces refuse such a message
/// (the server would drop it without an answer).
pub fn not_json_rpc(m: &Value) -> Option<&'static str> {
    if !m.is_object() {
        return Some("not a JSON-RPC message (an object)");
    }
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some("\"jsonrpc\" must be \"2.0\"");
    }
    let id_ok = match m.get("id") {
        None | Some(Value::Null) | Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    if !id_ok {
        return Some("an id is a string or an integer");
    }
    match m.get("method") {
        Some(Value::String(_)) => None,
        Some(_) => Some("a method is a string"),
        None if m.get("result").is_some() != m.get("error").is_some() && m.get("id").is_some() => {
            None
        }
        None => Some("neither a request, a notification nor a response"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Msg, not_json_rpc};

    #[test]
    fn only_json_rpc_2_0_goes_to_the_server() {
        let ok = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": "a", "method": "ping"}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": 1, "message": "x"}}),
        ];
        for m in ok {
            assert_eq!(not_json_rpc(&m), None, "{m}");
        }
        let bad = [
            json!({"jsonrpc": "2].0", "id": 2, "method": "tools/list"}),
            json!({"id": 2, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": {}, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": 3}),
            json!({"jsonrpc": "2.0", "id": 1}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}),
            json!([1]),
            json!("ping"),
        ];
        for m in bad {
            assert!(not_json_rpc(&m).is_some(), "{m}");
        }
    }

    /// What serde_json would change (key order, a wide integer, an exponent, spacing,
    /// escapes) goes out as it came; a batch's elements keep their own bytes.
    #[test]
    fn a_message_goes_out_as_it_came() {
        let one = "{\"z\": 1E+2, \"a\" :123456789012345678901234567890,\"s\":\"\\u00e9 é\"}";
        let (m, batch) = Msg::parse(&format!("  {one}\n")).unwrap();
        assert!(!batch);
        assert_eq!(m[0].text(), one);
        assert_eq!(m[0].v["z"], json!(100.0));
        let text = format!("[{one} , {{\"b\":2,\n\"a\":1}}]");
        let (m, batch) = Msg::parse(&text).unwrap();
        assert!(batch);
        assert_eq!(m[0].text(), one);
        assert_eq!(m[1].text(), "{\"b\":2,\n\"a\":1}");
        assert_eq!(m[1].line(), "{\"b\":2,\"a\":1}");
        assert_eq!(
            m[1].marked("refused"),
            "{\"_groundcheck\":\"refused\",\"b\":2,\"a\":1}"
        );
        let mut changed = m[1].clone();
        changed.value_mut()["c"] = json!(3);
        assert_eq!(changed.text(), "{\"a\":1,\"b\":2,\"c\":3}");
        let (empty, _) = Msg::parse("{}").unwrap();
        assert_eq!(empty[0].marked("x"), "{\"_groundcheck\":\"x\"}");
        assert_eq!(
            Msg::built(json!({"b": 1, "a": 2})).text(),
            "{\"a\":2,\"b\":1}"
        );
    }
}
