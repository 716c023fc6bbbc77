//! The direction-aware walk over two versions of one tool: annotations, wording, and the
//! input and output schemas to any depth, each difference named by a rule and a JSON
//! pointer.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::canonical::canonical;
use super::ids::*;
use super::rules::{BOUNDS, Direction};
use super::{Change, Tool, name_similarity, pair_up, text};

/// Keywords the walk judges itself.
const JUDGED: &[&str] = &[
    "type",
    "nullable",
    "enum",
    "const",
    "pattern",
    "format",
    "default",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "uniqueItems",
    "title",
    "description",
    "deprecated",
    "$ref",
    "$defs",
    "definitions",
];
/// Known keywords that change meaning in ways no rule judges: a change is for review.
const UNJUDGED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "contains",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "$dynamicRef",
    "$recursiveRef",
];
/// Known keywords that carry no contract.
const IGNORED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
    "examples",
    "readOnly",
    "writeOnly",
];

struct Walk<'a> {
    tool: &'a str,
    dir: Direction,
    others: &'a [String],
    out: &'a mut Vec<Change>,
}

/// Descriptions longer than this are compared for equality only: edit distance is
/// quadratic, and a 1 MB description must not stall a diff.
const SIMILARITY_CHARS: usize = 4096;

/// Normalized Levenshtein of two descriptions, bounded in cost.
pub(crate) fn description_similarity(a: &str, b: &str) -> f64 {
    if a.len() > SIMILARITY_CHARS || b.len() > SIMILARITY_CHARS {
        return if a == b { 1.0 } else { 0.0 };
    }
    strsim::normalized_levenshtein(a, b)
}

/// Keywords that describe a schema rather than restrict it: they stay beside a union.
const BESIDE_UNION: &[&str] = &[
    "title",
    "description",
    "default",
    "deprecated",
    "examples",
    "$comment",
];

/// `m` written as a one-branch `kw` union (its wording and default stay outside).
fn lift(m: &Map<String, Value>, kw: &str) -> Value {
    let mut outer = Map::new();
    let mut core = Map::new();
    for (k, v) in m {
        if BESIDE_UNION.contains(&k.as_str()) {
            outer.insert(k.clone(), v.clone());
        } else {
            core.insert(k.clone(), v.clone());
        }
    }
    outer.insert(kw.to_string(), Value::Array(vec![Value::Object(core)]));
    Value::Object(outer)
}

fn esc(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

fn obj(v: &Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m.clone(),
        Value::Bool(false) => Map::from_iter([("not".to_string(), Value::Object(Map::new()))]),
        _ => Map::new(),
    }
}

/// The `type` keyword as a set (None: any type) and whether null is allowed.
fn types(m: &Map<String, Value>) -> (Option<BTreeSet<String>>, bool) {
    let mut set: Option<BTreeSet<String>> = match m.get("type") {
        Some(Value::String(s)) => Some([s.clone()].into()),
        Some(Value::Array(a)) => Some(
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    };
    let mut null = m.get("nullable") == Some(&Value::Bool(true));
    if let Some(s) = &mut set {
        null |= s.remove("null");
    }
    (set, null)
}

fn accepts(set: &BTreeSet<String>, t: &str) -> bool {
    set.contains(t) || (t == "integer" && set.contains("number"))
}

fn fmt_types(s: &BTreeSet<String>) -> String {
    s.iter().cloned().collect::<Vec<_>>().join("|")
}

impl Walk<'_> {
    fn emit(
        &mut self,
        rule: SchemaRule,
        path: &str,
        message: String,
        b: Option<&Value>,
        a: Option<&Value>,
    ) {
        self.out.push(Change::new(
            rule.on(self.dir),
            self.tool,
            path,
            message,
            b,
            a,
        ));
    }

    /// How messages call a node: "parameter 'filter.from'" for the field path `filter.from`.
    fn label(&self, field: &str) -> String {
        match (field.is_empty(), self.dir) {
            (true, Direction::Input) => format!("tool '{}' inputSchema", self.tool),
            (true, _) => format!("tool '{}' outputSchema", self.tool),
            (false, Direction::Input) => format!("parameter '{field}'"),
            (false, _) => format!("result field '{field}'"),
        }
    }

    /// `field` is the node's dotted name from the schema root ("" for the root).
    fn schema(&mut self, path: &str, field: &str, old: &Value, new: &Value) {
        if old == new {
            return;
        }
        let (o, n) = (obj(old), obj(new));
        // One shape on one side, a union on the other: the shape is the union's one
        // branch, so a union that contains it is a widening (branches added), not the
        // shape's keywords removed.
        for kw in ["anyOf", "oneOf"] {
            let union = |m: &Map<String, Value>| m.contains_key("anyOf") || m.contains_key("oneOf");
            match (union(&o), n.contains_key(kw), o.contains_key(kw), union(&n)) {
                (false, true, _, _) if !o.is_empty() => {
                    return self.schema(path, field, &lift(&o, kw), new);
                }
                (_, _, true, false) if !n.is_empty() => {
                    return self.schema(path, field, old, &lift(&n, kw));
                }
                _ => {}
            }
        }
        let name = &self.label(field);
        let get = |m: &Map<String, Value>, k: &str| m.get(k).cloned();
        // Wording.
        for k in ["title", "description"] {
            let (ov, nv) = (get(&o, k), get(&n, k));
            text::text_change(
                self.tool,
                &format!("{path}/{k}"),
                name.as_str(),
                ov.as_ref().and_then(Value::as_str),
                nv.as_ref().and_then(Value::as_str),
                self.others,
                self.out,
            );
        }
        if o.get("deprecated") != Some(&Value::Bool(true))
            && n.get("deprecated") == Some(&Value::Bool(true))
        {
            self.emit(
                PROPERTY_DEPRECATED,
                &format!("{path}/deprecated"),
                format!("{name} was marked deprecated"),
                o.get("deprecated"),
                n.get("deprecated"),
            );
        }
        self.types(path, name, &o, &n);
        self.values(path, name, &o, &n);
        self.bounds(path, name, &o, &n);
        for (kw, [added, removed, changed]) in [
            ("pattern", [PATTERN_ADDED, PATTERN_REMOVED, PATTERN_CHANGED]),
            ("format", [FORMAT_ADDED, FORMAT_REMOVED, FORMAT_CHANGED]),
        ] {
            let (ov, nv) = (o.get(kw), n.get(kw));
            let p = format!("{path}/{kw}");
            match (ov, nv) {
                (None, Some(v)) => {
                    self.emit(added, &p, format!("{name} gained {kw} {v}"), None, nv)
                }
                (Some(v), None) => {
                    self.emit(removed, &p, format!("{name} lost {kw} {v}"), ov, None)
                }
                (Some(a), Some(b)) if a != b => self.emit(
                    changed,
                    &p,
                    format!("{name} {kw} changed from {a} to {b}"),
                    ov,
                    nv,
                ),
                _ => {}
            }
        }
        if o.get("default") != n.get("default") {
            let msg = match (o.get("default"), n.get("default")) {
                (None, Some(v)) => format!("{name} gained default {v}"),
                (Some(v), None) => format!("{name} lost default {v}"),
                (Some(a), Some(b)) => format!("{name} default changed from {a} to {b}"),
                _ => unreachable!(),
            };
            self.emit(
                DEFAULT_CHANGED,
                &format!("{path}/default"),
                msg,
                o.get("default"),
                n.get("default"),
            );
        }
        self.object(path, field, &o, &n);
        self.arrays(path, field, &o, &n);
        for (kw, rules) in [
            ("anyOf", [ANY_OF_BRANCH_ADDED, ANY_OF_BRANCH_REMOVED]),
            ("oneOf", [ONE_OF_BRANCH_ADDED, ONE_OF_BRANCH_REMOVED]),
            ("allOf", [ALL_OF_BRANCH_ADDED, ALL_OF_BRANCH_REMOVED]),
        ] {
            self.branches(path, field, kw, rules, &o, &n);
        }
        for kw in ["$ref", "$defs", "definitions"] {
            if o.get(kw) != n.get(kw) {
                self.emit(
                    REF_CHANGED,
                    &format!("{path}/{}", esc(kw)),
                    format!("{name} {kw} changed"),
                    o.get(kw),
                    n.get(kw),
                );
            }
        }
        let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
        for k in keys {
            let k = k.as_str();
            if JUDGED.contains(&k) || IGNORED.contains(&k) || BOUNDS.iter().any(|b| b.0 == k) {
                continue;
            }
            if o.get(k) != n.get(k) {
                let rule = if UNJUDGED.contains(&k) {
                    KEYWORD_CHANGED
                } else {
                    UNKNOWN_KEYWORD_CHANGED
                };
                self.emit(
                    rule,
                    &format!("{path}/{}", esc(k)),
                    format!("{name} keyword {k} changed"),
                    o.get(k),
                    n.get(k),
                );
            }
        }
    }

    fn types(&mut self, path: &str, name: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let ((ot, on), (nt, nn)) = (types(o), types(n));
        let p = format!("{path}/type");
        let (ov, nv) = (o.get("type"), n.get("type"));
        match (&ot, &nt) {
            (None, Some(b)) => self.emit(
                TYPE_NARROWED,
                &p,
                format!("{name} type restricted to {}", fmt_types(b)),
                ov,
                nv,
            ),
            (Some(a), None) => self.emit(
                TYPE_WIDENED,
                &p,
                format!("{name} type {} lifted (any type)", fmt_types(a)),
                ov,
                nv,
            ),
            (Some(a), Some(b)) if a != b => {
                let wider = a.iter().all(|t| accepts(b, t));
                let narrower = b.iter().all(|t| accepts(a, t));
                let msg = format!(
                    "{name} type changed from {} to {}",
                    fmt_types(a),
                    fmt_types(b)
                );
                let rule = match (wider, narrower) {
                    (true, false) => TYPE_WIDENED,
                    (false, true) => TYPE_NARROWED,
                    _ => TYPE_CHANGED,
                };
                self.emit(rule, &p, msg, ov, nv);
            }
            _ => {}
        }
        if ot.is_some() && nt.is_some() && on != nn {
            let (rule, msg) = if nn {
                (NULLABLE_ADDED, format!("{name} now allows null"))
            } else {
                (NULLABLE_REMOVED, format!("{name} no longer allows null"))
            };
            self.emit(rule, &p, msg, ov, nv);
        }
    }

    fn values(&mut self, path: &str, name: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let p = format!("{path}/enum");
        match (
            o.get("enum").and_then(Value::as_array),
            n.get("enum").and_then(Value::as_array),
        ) {
            (None, Some(b)) => self.emit(
                ENUM_INTRODUCED,
                &p,
                format!("{name} now restricted to enum {}", Value::Array(b.clone())),
                None,
                n.get("enum"),
            ),
            (Some(a), None) => self.emit(
                ENUM_DROPPED,
                &p,
                format!("{name} enum {} dropped", Value::Array(a.clone())),
                o.get("enum"),
                None,
            ),
            (Some(a), Some(b)) => {
                for v in a.iter().filter(|v| !b.contains(v)) {
                    self.emit(
                        ENUM_VALUE_REMOVED,
                        &p,
                        format!("{name} enum value {v} removed"),
                        Some(v),
                        None,
                    );
                }
                for v in b.iter().filter(|v| !a.contains(v)) {
                    self.emit(
                        ENUM_VALUE_ADDED,
                        &p,
                        format!("{name} enum value {v} added"),
                        None,
                        Some(v),
                    );
                }
            }
            _ => {}
        }
        let p = format!("{path}/const");
        match (o.get("const"), n.get("const")) {
            (None, Some(v)) => self.emit(
                CONST_SET,
                &p,
                format!("{name} fixed to const {v}"),
                None,
                Some(v),
            ),
            (Some(v), None) => self.emit(
                CONST_REMOVED,
                &p,
                format!("{name} const {v} removed"),
                Some(v),
                None,
            ),
            (Some(a), Some(b)) if a != b => self.emit(
                CONST_CHANGED,
                &p,
                format!("{name} const changed from {a} to {b}"),
                Some(a),
                Some(b),
            ),
            _ => {}
        }
        let p = format!("{path}/uniqueItems");
        let t = |m: &Map<String, Value>| m.get("uniqueItems") == Some(&Value::Bool(true));
        match (t(o), t(n)) {
            (false, true) => self.emit(
                UNIQUE_ITEMS_SET,
                &p,
                format!("{name} items must now be unique"),
                o.get("uniqueItems"),
                n.get("uniqueItems"),
            ),
            (true, false) => self.emit(
                UNIQUE_ITEMS_REMOVED,
                &p,
                format!("{name} items no longer need to be unique"),
                o.get("uniqueItems"),
                n.get("uniqueItems"),
            ),
            _ => {}
        }
    }

    fn bounds(&mut self, path: &str, name: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        for (kw, rules, larger_tighter) in BOUNDS {
            let (ov, nv) = (o.get(*kw), n.get(*kw));
            if ov == nv {
                continue;
            }
            let p = format!("{path}/{kw}");
            let (a, b) = (ov.and_then(Value::as_f64), nv.and_then(Value::as_f64));
            if ov.is_some_and(|v| !v.is_number()) || nv.is_some_and(|v| !v.is_number()) {
                // draft-4 boolean exclusiveMinimum/Maximum: no order to judge.
                self.emit(
                    KEYWORD_CHANGED,
                    &p,
                    format!("{name} keyword {kw} changed"),
                    ov,
                    nv,
                );
                continue;
            }
            let kind = match (a, b) {
                (None, Some(_)) => "set",
                (Some(_), None) => "removed",
                (Some(a), Some(b)) if *kw == "multipleOf" => {
                    if a != 0.0 && (b / a).fract() == 0.0 {
                        "tightened"
                    } else if b != 0.0 && (a / b).fract() == 0.0 {
                        "loosened"
                    } else {
                        self.emit(
                            MULTIPLE_OF_CHANGED,
                            &p,
                            format!("{name} multipleOf changed from {a} to {b}"),
                            ov,
                            nv,
                        );
                        continue;
                    }
                }
                (Some(a), Some(b)) => {
                    if (b > a) == *larger_tighter {
                        "tightened"
                    } else {
                        "loosened"
                    }
                }
                _ => continue,
            };
            let msg = match kind {
                "set" => format!("{name} gained {kw} {}", nv.unwrap()),
                "removed" => format!("{name} lost {kw} {}", ov.unwrap()),
                _ => format!("{name} {kw} {kind} from {} to {}", ov.unwrap(), nv.unwrap()),
            };
            let rule = match kind {
                "tightened" => rules[0],
                "loosened" => rules[1],
                "set" => rules[2],
                _ => rules[3],
            };
            self.emit(rule, &p, msg, ov, nv);
        }
    }

    /// How many changes the walk finds from `a` to `b` (to pair union branches).
    fn count(&self, a: &Value, b: &Value) -> usize {
        let mut out = Vec::new();
        let mut w = Walk {
            tool: self.tool,
            dir: self.dir,
            others: self.others,
            out: &mut out,
        };
        w.schema("", "", a, b);
        out.len()
    }

    fn child(field: &str, part: &str) -> String {
        if field.is_empty() {
            part.to_string()
        } else if part.starts_with('[') {
            format!("{field}{part}")
        } else {
            format!("{field}.{part}")
        }
    }

    fn object(&mut self, path: &str, field: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let name = &self.label(field);
        let empty = Map::new();
        let op = o
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let np = n
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let req = |m: &Map<String, Value>| -> BTreeSet<String> {
            m.get("required")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let (oreq, nreq) = (req(o), req(n));
        let removed: Vec<String> = op
            .keys()
            .filter(|k| !np.contains_key(*k))
            .cloned()
            .collect();
        let added: Vec<String> = np
            .keys()
            .filter(|k| !op.contains_key(*k))
            .cloned()
            .collect();
        let renames = pair_up(&removed, &added, |r, a| {
            let (ro, ao) = (obj(&op[r]), obj(&np[a]));
            // A rename may change the type too (`max_results` string to
            // `max_results_count` integer): then the names or descriptions must say so
            // alone, and a same-type candidate wins.
            let retyped = types(&ro).0 != types(&ao).0;
            let s = name_similarity(r, a);
            let d = match (
                ro.get("description").and_then(Value::as_str),
                ao.get("description").and_then(Value::as_str),
            ) {
                (Some(x), Some(y)) if !x.is_empty() => description_similarity(x, y),
                _ => 0.0,
            };
            let score = s.max(d);
            match retyped {
                false => (s >= 0.8 || d >= 0.9).then_some(score),
                true => (s >= 0.9 || d >= 0.9).then_some(score * 0.9),
            }
        });
        let pp = |k: &str| format!("{path}/properties/{}", esc(k));
        for (r, a) in &renames {
            let (a_field, r_field) = (Self::child(field, a), Self::child(field, r));
            let (a_name, r_name) = (self.label(&a_field), self.label(&r_field));
            self.emit(
                PROPERTY_LIKELY_RENAMED,
                &pp(r),
                format!("{r_name} likely renamed to '{a}'"),
                Some(&Value::String(r.clone())),
                Some(&Value::String(a.clone())),
            );
            match (oreq.contains(r), nreq.contains(a)) {
                (false, true) => self.emit(
                    PROPERTY_BECAME_REQUIRED,
                    &pp(a),
                    format!("{a_name} is required (was optional as '{r}')"),
                    None,
                    None,
                ),
                (true, false) => self.emit(
                    PROPERTY_BECAME_OPTIONAL,
                    &pp(a),
                    format!("{a_name} is optional (was required as '{r}')"),
                    None,
                    None,
                ),
                _ => {}
            }
            self.schema(&pp(a), &a_field, &op[r], &np[a]);
        }
        for r in removed
            .iter()
            .filter(|r| !renames.iter().any(|(x, _)| x == *r))
        {
            let nm = self.label(&Self::child(field, r));
            // An optional argument that the server no longer names but still accepts (an
            // open object) is dropped without a word: the old call succeeds and means
            // something else.
            let open = n.get("additionalProperties") != Some(&Value::Bool(false));
            if !oreq.contains(r) && open && self.dir == Direction::Input {
                self.out.push(Change::new(
                    "input-property-removed-optional-ignored",
                    self.tool,
                    &pp(r),
                    format!(
                        "optional {nm} was removed and unknown arguments are not rejected \
                         (no additionalProperties: false): a call that still sends it \
                         succeeds and the argument is silently ignored"
                    ),
                    Some(&op[r]),
                    None,
                ));
                continue;
            }
            let rule = if oreq.contains(r) {
                PROPERTY_REMOVED_REQUIRED
            } else {
                PROPERTY_REMOVED_OPTIONAL
            };
            let kind = if oreq.contains(r) {
                "required"
            } else {
                "optional"
            };
            self.emit(
                rule,
                &pp(r),
                format!("{kind} {nm} was removed"),
                Some(&op[r]),
                None,
            );
        }
        for a in added
            .iter()
            .filter(|a| !renames.iter().any(|(_, x)| x == *a))
        {
            let nm = self.label(&Self::child(field, a));
            let rule = if nreq.contains(a) {
                PROPERTY_ADDED_REQUIRED
            } else {
                PROPERTY_ADDED_OPTIONAL
            };
            let kind = if nreq.contains(a) {
                "required"
            } else {
                "optional"
            };
            self.emit(
                rule,
                &pp(a),
                format!("{kind} {nm} was added"),
                None,
                Some(&np[a]),
            );
            let d = obj(&np[a]);
            text::suspicious(
                self.tool,
                &format!("{}/description", pp(a)),
                &nm,
                None,
                d.get("description").and_then(Value::as_str),
                self.others,
                self.out,
            );
        }
        for (k, ov) in op {
            let Some(nv) = np.get(k) else { continue };
            let sub = Self::child(field, k);
            let nm = self.label(&sub);
            match (oreq.contains(k), nreq.contains(k)) {
                (false, true) => self.emit(
                    PROPERTY_BECAME_REQUIRED,
                    &pp(k),
                    format!("{nm} became required"),
                    None,
                    None,
                ),
                (true, false) => self.emit(
                    PROPERTY_BECAME_OPTIONAL,
                    &pp(k),
                    format!("{nm} became optional"),
                    None,
                    None,
                ),
                _ => {}
            }
            self.schema(&pp(k), &sub, ov, nv);
        }
        // Required names with no property schema on either side.
        let named = |k: &String| op.contains_key(k) || np.contains_key(k);
        for k in nreq.difference(&oreq).filter(|k| !named(k)) {
            let nm = self.label(&Self::child(field, k));
            self.emit(
                PROPERTY_BECAME_REQUIRED,
                &format!("{path}/required"),
                format!("{nm} became required"),
                None,
                Some(&Value::String(k.clone())),
            );
        }
        for k in oreq.difference(&nreq).filter(|k| !named(k)) {
            let nm = self.label(&Self::child(field, k));
            self.emit(
                PROPERTY_BECAME_OPTIONAL,
                &format!("{path}/required"),
                format!("{nm} became optional"),
                Some(&Value::String(k.clone())),
                None,
            );
        }
        let p = format!("{path}/additionalProperties");
        let (oa, na) = (o.get("additionalProperties"), n.get("additionalProperties"));
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        match (closed(oa), closed(na)) {
            // Saying what MCP clients already do (they send the parameters the schema
            // names; the gateway refuses others by default): a generator's churn.
            (false, true) if oa.is_none() => self.emit(
                ADDITIONAL_PROPERTIES_DECLARED_CLOSED,
                &p,
                format!("{name} now says it takes no properties it does not name"),
                oa,
                na,
            ),
            (false, true) => self.emit(
                ADDITIONAL_PROPERTIES_CLOSED,
                &p,
                format!("{name} no longer allows properties it does not name"),
                oa,
                na,
            ),
            (true, false) => self.emit(
                ADDITIONAL_PROPERTIES_OPENED,
                &p,
                format!("{name} now allows properties it does not name"),
                oa,
                na,
            ),
            _ => {
                if let (Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) = (oa, na) {
                    self.schema(&p, &Self::child(field, "*"), a, b);
                } else if oa != na
                    && (oa.is_some_and(Value::is_object) || na.is_some_and(Value::is_object))
                {
                    self.emit(
                        KEYWORD_CHANGED,
                        &p,
                        format!("{name} keyword additionalProperties changed"),
                        oa,
                        na,
                    );
                }
            }
        }
    }

    fn arrays(&mut self, path: &str, field: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let items = Self::child(field, "[]");
        let p = format!("{path}/items");
        let any = Value::Bool(true);
        match (o.get("items"), n.get("items")) {
            (a, b) if a == b => {}
            (Some(a), Some(b)) if !a.is_array() && !b.is_array() => self.schema(&p, &items, a, b),
            (None, Some(b)) if !b.is_array() => self.schema(&p, &items, &any, b),
            (Some(a), None) if !a.is_array() => self.schema(&p, &items, a, &any),
            (a, b) => self.tuple(path, field, "items", a, b),
        }
        let (a, b) = (o.get("prefixItems"), n.get("prefixItems"));
        if a != b {
            self.tuple(path, field, "prefixItems", a, b);
        }
    }

    fn tuple(&mut self, path: &str, field: &str, kw: &str, a: Option<&Value>, b: Option<&Value>) {
        let name = self.label(field);
        match (a.and_then(Value::as_array), b.and_then(Value::as_array)) {
            (Some(x), Some(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    self.schema(
                        &format!("{path}/{kw}/{i}"),
                        &Self::child(field, &format!("[{i}]")),
                        p,
                        q,
                    );
                }
            }
            _ => self.emit(
                KEYWORD_CHANGED,
                &format!("{path}/{kw}"),
                format!("{name} keyword {kw} changed"),
                a,
                b,
            ),
        }
    }

    fn branches(
        &mut self,
        path: &str,
        field: &str,
        kw: &str,
        [added, removed]: [SchemaRule; 2],
        o: &Map<String, Value>,
        n: &Map<String, Value>,
    ) {
        let name = self.label(field);
        let list = |m: &Map<String, Value>| {
            m.get(kw)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let (ob, nb) = (list(o), list(n));
        if ob == nb {
            return;
        }
        let mut old_left: Vec<(usize, &Value)> = ob
            .iter()
            .enumerate()
            .filter(|(_, v)| !nb.contains(v))
            .collect();
        let mut new_left: Vec<(usize, &Value)> = nb
            .iter()
            .enumerate()
            .filter(|(_, v)| !ob.contains(v))
            .collect();
        // Changed branches: each old one paired with the new one it differs from least.
        while !old_left.is_empty() && !new_left.is_empty() {
            let (_, a) = old_left.remove(0);
            let best = (0..new_left.len())
                .min_by_key(|&k| self.count(a, new_left[k].1))
                .unwrap_or(0);
            let (j, b) = new_left.remove(best);
            self.schema(
                &format!("{path}/{kw}/{j}"),
                &Self::child(field, &format!("{kw}[{j}]")),
                a,
                b,
            );
        }
        for (i, v) in old_left {
            self.emit(
                removed,
                &format!("{path}/{kw}/{i}"),
                format!("{name} lost {kw} branch {i}"),
                Some(v),
                None,
            );
        }
        for (j, v) in new_left {
            self.emit(
                added,
                &format!("{path}/{kw}/{j}"),
                format!("{name} gained {kw} branch {j}"),
                None,
                Some(v),
            );
        }
    }
}

/// MCP defaults for the behaviour hints.
const HINTS: &[(&str, bool, bool, &str)] = &[
    // (key, default, the unsafe value, rule when it moves to the unsafe value)
    ("readOnlyHint", false, false, "annotation-read-only-removed"),
    (
        "destructiveHint",
        true,
        true,
        "annotation-destructive-added",
    ),
    (
        "idempotentHint",
        false,
        false,
        "annotation-idempotent-removed",
    ),
    ("openWorldHint", true, true, "annotation-open-world-added"),
];

fn annotations(old: &Tool, new: &Tool, others: &[String], out: &mut Vec<Change>) {
    let empty = Map::new();
    let o = old
        .annotations
        .as_ref()
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let n = new
        .annotations
        .as_ref()
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let tool = new.name.as_str();
    for (key, default, unsafe_value, rule) in HINTS {
        let eff = |m: &Map<String, Value>| m.get(*key).and_then(Value::as_bool).unwrap_or(*default);
        let (a, b) = (eff(o), eff(n));
        let p = format!("/annotations/{key}");
        if a != b {
            if b == *unsafe_value {
                out.push(Change::new(
                    rule,
                    tool,
                    &p,
                    format!("tool '{tool}' {key} went from {a} to {b}"),
                    o.get(*key),
                    n.get(*key),
                ));
            } else {
                out.push(Change::new(
                    "annotation-made-safer",
                    tool,
                    &p,
                    format!("tool '{tool}' {key} went from {a} to {b}"),
                    o.get(*key),
                    n.get(*key),
                ));
            }
        }
    }
    text::text_change(
        tool,
        "/annotations/title",
        &format!("tool '{tool}'"),
        o.get("title").and_then(Value::as_str),
        n.get("title").and_then(Value::as_str),
        others,
        out,
    );
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for k in keys {
        if k == "title" || HINTS.iter().any(|h| h.0 == k) {
            continue;
        }
        if o.get(k) != n.get(k) {
            out.push(Change::new(
                "annotation-changed",
                tool,
                &format!("/annotations/{}", esc(k)),
                format!("tool '{tool}' annotation {k} changed"),
                o.get(k),
                n.get(k),
            ));
        }
    }
}

fn side(
    tool: &str,
    dir: Direction,
    key: &str,
    old: &Value,
    new: &Value,
    others: &[String],
    out: &mut Vec<Change>,
) {
    let resolved = canonical(old).and_then(|o| canonical(new).map(|n| (o, n)));
    match resolved {
        Ok((o, n)) => {
            let mut w = Walk {
                tool,
                dir,
                others,
                out,
            };
            w.schema(&format!("/{key}"), "", &o, &n);
        }
        Err(why) => out.push(Change::new(
            "tool-schema-unreadable",
            tool,
            &format!("/{key}"),
            format!("tool '{tool}' {key} cannot be judged: {why}"),
            None,
            None,
        )),
    }
}

/// Every change between two versions of one tool (`new.name` names it).
/// An inputSchema that declares nothing: no type, properties or combinators (what a
/// broken schema generator emits, e.g. zod 4 under zod-to-json-schema 3).
fn declares_nothing(s: Option<&Value>) -> bool {
    let Some(Value::Object(m)) = s.map(|s| canonical(s).unwrap_or_else(|_| s.clone())) else {
        return s.is_none();
    };
    m.keys()
        .all(|k| IGNORED.contains(&k.as_str()) || matches!(k.as_str(), "title" | "description"))
}

pub fn diff_tool(old: &Tool, new: &Tool, others: &[String], out: &mut Vec<Change>) {
    let tool = new.name.as_str();
    let what = format!("tool '{tool}'");
    text::text_change(
        tool,
        "/title",
        &what,
        old.title.as_deref(),
        new.title.as_deref(),
        others,
        out,
    );
    text::text_change(
        tool,
        "/description",
        &what,
        old.description.as_deref(),
        new.description.as_deref(),
        others,
        out,
    );
    annotations(old, new, others, out);
    text::review_values(Some(old), new, others, out);
    let any = Value::Object(Map::new());
    let (was, is) = (
        declares_nothing(old.input_schema.as_ref()),
        declares_nothing(new.input_schema.as_ref()),
    );
    let declared = |s: &Option<Value>| {
        s.as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map_or(0, |p| p.len())
    };
    match (was, is) {
        // One rule for the whole schema, not one change per parameter.
        (false, true) if declared(&old.input_schema) > 0 => out.push(Change::new(
            "tool-input-schema-emptied",
            tool,
            "/inputSchema",
            format!(
                "{what} inputSchema now declares nothing (it had {} parameter(s)): the model \
                 no longer learns what to send; often a schema generator failure after a \
                 dependency change",
                declared(&old.input_schema)
            ),
            old.input_schema.as_ref(),
            new.input_schema.as_ref(),
        )),
        (true, false) if old.input_schema.is_some() && declared(&new.input_schema) > 0 => {
            out.push(Change::new(
                "tool-input-schema-filled",
                tool,
                "/inputSchema",
                format!(
                    "{what} inputSchema declared nothing and now declares {} parameter(s)",
                    declared(&new.input_schema)
                ),
                old.input_schema.as_ref(),
                new.input_schema.as_ref(),
            ))
        }
        _ => side(
            tool,
            Direction::Input,
            "inputSchema",
            old.input_schema.as_ref().unwrap_or(&any),
            new.input_schema.as_ref().unwrap_or(&any),
            others,
            out,
        ),
    }
    match (&old.output_schema, &new.output_schema) {
        (None, Some(s)) => out.push(Change::new(
            "tool-output-schema-added",
            tool,
            "/outputSchema",
            format!("{what} now declares an outputSchema"),
            None,
            Some(s),
        )),
        (Some(s), None) => out.push(Change::new(
            "tool-output-schema-removed",
            tool,
            "/outputSchema",
            format!("{what} no longer declares an outputSchema"),
            Some(s),
            None,
        )),
        (Some(a), Some(b)) => side(tool, Direction::Output, "outputSchema", a, b, others, out),
        (None, None) => {}
    }
}
