//! Canonical form of a JSON Schema: local `$ref`s resolved in place, keys sorted (serde_json's
//! map is ordered), so field order and `$defs` layout cause no churn. Bounded: a schema
//! nested too deep or growing too large while refs resolve is an error, not a hang.

use serde_json::{Map, Value};

/// Levels of JSON nesting a resolved schema may have.
pub const MAX_DEPTH: usize = 200;
/// Nodes a resolved schema may have (refs can multiply a small schema).
pub const MAX_NODES: usize = 200_000;

/// Keywords whose values are data, not schemas: never resolved.
const DATA: &[&str] = &["enum", "const", "default", "examples"];

struct Resolver<'a> {
    root: &'a Value,
    stack: Vec<String>,
    nodes: usize,
    recursive: bool,
}

/// The resolved schema. `$defs`/`definitions` are dropped once inlined, and kept when a
/// recursive `$ref` still points into them.
pub fn canonical(schema: &Value) -> Result<Value, String> {
    let mut r = Resolver {
        root: schema,
        stack: Vec::new(),
        nodes: 0,
        recursive: false,
    };
    let mut out = normalize(r.walk(schema, 0, true)?);
    if r.recursive
        && let (Value::Object(out), Value::Object(root)) = (&mut out, schema)
    {
        for key in ["$defs", "definitions"] {
            if let Some(defs) = root.get(key) {
                let mut r2 = Resolver {
                    root: schema,
                    stack: Vec::new(),
                    nodes: 0,
                    recursive: false,
                };
                let defs = r2.walk(defs, 1, false)?;
                let defs = match defs {
                    Value::Object(m) => {
                        Value::Object(m.into_iter().map(|(k, v)| (k, normalize(v))).collect())
                    }
                    other => other,
                };
                out.insert(key.to_string(), defs);
            }
        }
    }
    Ok(out)
}

fn decode_pointer(fragment: &str) -> String {
    // A $ref fragment is URI-encoded; serde_json's pointer handles ~0 and ~1 only.
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Resolver<'_> {
    fn walk(&mut self, v: &Value, depth: usize, root: bool) -> Result<Value, String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "schema grows past {MAX_NODES} nodes while resolving $refs"
            ));
        }
        if depth > MAX_DEPTH {
            return Err(format!("schema nested deeper than {MAX_DEPTH} levels"));
        }
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref")
                    && let Some(fragment) = r.strip_prefix('#')
                {
                    if self.stack.iter().any(|s| s == r) {
                        self.recursive = true;
                        return Ok(Value::Object(Map::from_iter([(
                            "$ref".to_string(),
                            Value::String(r.clone()),
                        )])));
                    }
                    let target = self
                        .root
                        .pointer(&decode_pointer(fragment))
                        .ok_or_else(|| format!("$ref '{r}' does not resolve"))?;
                    self.stack.push(r.clone());
                    let resolved = self.walk(target, depth + 1, false)?;
                    self.stack.pop();
                    let mut out = match resolved {
                        Value::Object(o) => o,
                        Value::Bool(true) => Map::new(),
                        other => return Ok(other),
                    };
                    // Keywords beside $ref (allowed since 2019-09) apply too.
                    for (k, val) in m.iter().filter(|(k, _)| *k != "$ref") {
                        out.insert(k.clone(), self.child(k, val, depth)?);
                    }
                    return Ok(Value::Object(out));
                }
                let mut out = Map::new();
                for (k, val) in m {
                    if root && (k == "$defs" || k == "definitions") {
                        continue;
                    }
                    out.insert(k.clone(), self.child(k, val, depth)?);
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => items
                .iter()
                .map(|x| self.walk(x, depth + 1, false))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Ok(other.clone()),
        }
    }

    fn child(&mut self, key: &str, v: &Value, depth: usize) -> Result<Value, String> {
        if DATA.contains(&key) {
            self.nodes += 1;
            Ok(v.clone())
        } else {
            self.walk(v, depth + 1, false)
        }
    }
}

/// The largest integer a JSON number keeps exactly in JavaScript (2^53-1): zod and other
/// generators write it (and its negative) as the bound of a number that has none.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Keywords whose value is one schema, a list of schemas, or a map of named schemas.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
const NAMED: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// The same accepted set, written one way, so schema generators' churn is no change:
/// `$schema` dropped; `type: ["string"]` is `type: "string"` and type lists are sorted;
/// `enum` and `required` sorted; an integer's exclusive bounds made inclusive
/// (`exclusiveMinimum: 0` is `minimum: 1`, the tighter of two kept); bounds at or beyond
/// ±(2^53-1) dropped (no JSON client sends such a number exactly: the generator's "no
/// bound"). Applied to every schema in the tree.
pub fn normalize(v: Value) -> Value {
    let Value::Object(mut m) = v else {
        return v;
    };
    m.remove("$schema");
    for (k, val) in m.iter_mut() {
        let k = k.as_str();
        if ONE.contains(&k) {
            *val = match std::mem::take(val) {
                // draft-4 tuple `items`.
                Value::Array(a) => Value::Array(a.into_iter().map(normalize).collect()),
                other => normalize(other),
            };
        } else if LIST.contains(&k) {
            if let Value::Array(a) = std::mem::take(val) {
                *val = Value::Array(a.into_iter().map(normalize).collect());
            }
        } else if NAMED.contains(&k)
            && let Value::Object(named) = std::mem::take(val)
        {
            *val = Value::Object(named.into_iter().map(|(n, s)| (n, normalize(s))).collect());
        }
    }
    if let Some(Value::Array(types)) = m.get("type") {
        let mut t: Vec<Value> = types.clone();
        t.sort_by_key(|x| x.to_string());
        t.dedup();
        let one = (t.len() == 1).then(|| t[0].clone());
        m.insert("type".into(), one.unwrap_or(Value::Array(t)));
    }
    for key in ["enum", "required"] {
        if let Some(Value::Array(a)) = m.get_mut(key) {
            a.sort_by_key(|x| x.to_string());
            a.dedup();
        }
    }
    if m.get("type").and_then(Value::as_str) == Some("integer") {
        let f = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_f64);
        if let Some(x) = f(&m, "exclusiveMinimum") {
            let lo = x.floor() + 1.0;
            let lo = f(&m, "minimum").map_or(lo, |a| a.max(lo));
            m.remove("exclusiveMinimum");
            m.insert("minimum".into(), number(lo));
        }
        if let Some(x) = f(&m, "exclusiveMaximum") {
            let hi = x.ceil() - 1.0;
            let hi = f(&m, "maximum").map_or(hi, |a| a.min(hi));
            m.remove("exclusiveMaximum");
            m.insert("maximum".into(), number(hi));
        }
    }
    // (keyword, an upper bound)
    for (k, upper) in [
        ("minimum", false),
        ("exclusiveMinimum", false),
        ("maximum", true),
        ("exclusiveMaximum", true),
        ("maxLength", true),
        ("maxItems", true),
        ("maxProperties", true),
    ] {
        let no_bound = |x: f64| {
            if upper {
                x >= MAX_SAFE_INTEGER
            } else {
                x <= -MAX_SAFE_INTEGER
            }
        };
        if m.get(k).and_then(Value::as_f64).is_some_and(no_bound) {
            m.remove(k);
        }
    }
    Value::Object(m)
}

/// An integral bound as a JSON integer (so `1` and `1.0` do not differ).
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < MAX_SAFE_INTEGER {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// The schema without model-visible wording (title, description, examples, comments):
/// what the structure hash covers. Property names are kept whatever they are called.
pub fn strip_text(v: &Value) -> Value {
    strip(v, false)
}

fn strip(v: &Value, names: bool) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    names
                        || !matches!(
                            k.as_str(),
                            "title" | "description" | "examples" | "$comment"
                        )
                })
                .map(|(k, x)| {
                    let named = !names
                        && matches!(
                            k.as_str(),
                            "properties" | "patternProperties" | "$defs" | "definitions"
                        );
                    let x = if !names && DATA.contains(&k.as_str()) {
                        x.clone()
                    } else {
                        strip(x, named)
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| strip(x, false)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_refs_and_drops_defs() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                       "$defs": {"A": {"type": "string"}}});
        assert_eq!(
            canonical(&s).unwrap(),
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        );
    }

    #[test]
    fn recursion_is_kept_as_a_ref() {
        let s = json!({"$defs": {"node": {"type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"});
        let c = canonical(&s).unwrap();
        assert_eq!(
            c["properties"]["kids"]["items"],
            json!({"$ref": "#/$defs/node"})
        );
        assert!(c.get("$defs").is_some());
    }

    #[test]
    fn bad_refs_and_blowups_are_errors() {
        assert!(
            canonical(&json!({"$ref": "#/$defs/missing"}))
                .unwrap_err()
                .contains("does not resolve")
        );
        // Each level doubles: 2^40 nodes if resolved naively.
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": format!("#/$defs/d{}", i + 1)}, {"$ref": format!("#/$defs/d{}", i + 1)}]}),
            );
        }
        defs.insert("d40".into(), json!({"type": "string"}));
        let s = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        assert!(canonical(&s).unwrap_err().contains("nodes"));
    }

    #[test]
    fn generators_churn_normalizes_away() {
        // zod's 2^53-1, pydantic's exclusiveMinimum, a dialect line, type lists, enum order.
        let a = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"n": {"type": "integer", "exclusiveMinimum": 0,
                                 "maximum": 9007199254740991_u64},
                           "k": {"type": ["string"], "enum": ["b", "a"]},
                           "m": {"type": ["null", "number"], "minimum": -9007199254740991_i64}},
            "required": ["n", "k"]});
        let b = json!({"type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1},
                           "k": {"type": "string", "enum": ["a", "b"]},
                           "m": {"type": ["number", "null"]}},
            "required": ["k", "n"]});
        assert_eq!(canonical(&a).unwrap(), canonical(&b).unwrap());
        // A number's exclusive bound is not an integer's: kept.
        let c = json!({"type": "number", "exclusiveMinimum": 0});
        assert_eq!(canonical(&c).unwrap(), c);
        // The tighter bound wins.
        assert_eq!(
            canonical(&json!({"type": "integer", "exclusiveMaximum": 10, "maximum": 5})).unwrap(),
            json!({"type": "integer", "maximum": 5})
        );
    }

    #[test]
    fn strip_keeps_property_names() {
        let s = json!({"properties": {"description": {"type": "string", "description": "x"}}});
        assert_eq!(
            strip_text(&s),
            json!({"properties": {"description": {"type": "string"}}})
        );
    }
}
