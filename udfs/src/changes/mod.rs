//! Tool-schema drift (seed 002): two snapshots of a server's tools in, a list of classified
//! changes out. The rules are data (`rules`), the schema walk is direction-aware
//! (`schema`), model-visible wording is judged in `text`, and `semver` turns changes into
//! a version bump.

pub mod canonical;
pub mod ids;
pub mod language;
pub mod rules;
pub mod schema;
pub mod semver;
pub mod surface;
pub mod text;
pub mod text_model;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub use rules::{Action, Direction, RULES, Rule, Severity};

/// One tool as tools/list gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
    pub output_schema: Option<Value>,
    pub annotations: Option<Value>,
    pub version: Option<String>,
}

impl Tool {
    /// A tools/list entry. The declared version is read from `version`, `schema_version`
    /// (seed 002's example), `_meta.version` or `_meta.fastmcp.version` (where fastmcp
    /// puts a tool's `version=`), in that order.
    pub fn from_json(v: &Value) -> Result<Tool, String> {
        let o = v
            .as_object()
            .ok_or_else(|| format!("a tool must be a JSON object, got {}", kind(v)))?;
        let name = match o.get("name") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(other) if !other.is_string() => {
                return Err(format!("tool name must be a string, got {}", kind(other)));
            }
            _ => return Err("a tool has no name".into()),
        };
        let text = |k: &str| -> Result<Option<String>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!(
                    "tool '{name}': {k} must be a string, got {}",
                    kind(other)
                )),
            }
        };
        let schema = |k: &str| -> Result<Option<Value>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(s @ (Value::Object(_) | Value::Bool(_))) => Ok(Some(s.clone())),
                Some(other) => Err(format!(
                    "tool '{name}': {k} must be a JSON Schema object, got {}",
                    kind(other)
                )),
            }
        };
        let version = text("version")?.or(text("schema_version")?).or_else(|| {
            let meta = o.get("_meta")?;
            meta.get("version")
                .or_else(|| meta.get("fastmcp")?.get("version"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        Ok(Tool {
            title: text("title")?,
            description: text("description")?,
            input_schema: schema("inputSchema")?,
            output_schema: schema("outputSchema")?,
            annotations: match o.get("annotations") {
                None | Some(Value::Null) => None,
                Some(a @ Value::Object(_)) => Some(a.clone()),
                Some(other) => {
                    return Err(format!(
                        "tool '{name}': annotations must be an object, got {}",
                        kind(other)
                    ));
                }
            },
            version,
            name,
        })
    }

    /// The tool as a tools/list entry (keys sorted).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        };
        put("title", self.title.clone().map(Value::String));
        put("description", self.description.clone().map(Value::String));
        put("inputSchema", self.input_schema.clone());
        put("outputSchema", self.output_schema.clone());
        put("annotations", self.annotations.clone());
        put("version", self.version.clone().map(Value::String));
        Value::Object(m)
    }

    /// Hash of the model-visible text: name, titles, descriptions (the tool's and every
    /// schema node's, by JSON pointer). 16 hex digits of SHA-256.
    pub fn text_hash(&self) -> String {
        let mut texts = BTreeMap::new();
        for (side, s) in [
            ("inputSchema", &self.input_schema),
            ("outputSchema", &self.output_schema),
        ] {
            if let Some(s) = s {
                let s = canonical::canonical(s).unwrap_or_else(|_| s.clone());
                collect_text(&s, &format!("/{side}"), &mut texts);
            }
        }
        // The same normalisation the diff uses: a whitespace-only edit is no change.
        let words = |s: &Option<String>| s.as_deref().map(normal_words);
        let v = serde_json::json!({
            "name": self.name,
            "title": words(&self.title),
            "description": words(&self.description),
            "annotations_title": self.annotations.as_ref().and_then(|a| a.get("title")).and_then(Value::as_str).map(normal_words),
            "schema_text": texts,
        });
        short_hash(&v.to_string())
    }

    /// Hash of the structure: canonical schemas without wording, and annotations.
    pub fn schema_hash(&self) -> String {
        let side = |s: &Option<Value>| {
            s.as_ref().map(|s| {
                canonical::strip_text(&canonical::canonical(s).unwrap_or_else(|_| s.clone()))
            })
        };
        let v = serde_json::json!({
            "inputSchema": side(&self.input_schema),
            "outputSchema": side(&self.output_schema),
            "annotations": self.annotations.as_ref().map(|a| {
                let mut a = a.clone();
                if let Some(o) = a.as_object_mut() { o.remove("title"); }
                a
            }),
        });
        short_hash(&v.to_string())
    }
}

fn collect_text(v: &Value, path: &str, out: &mut BTreeMap<String, Value>) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
            match (k.as_str(), x) {
                ("title" | "description", Value::String(s)) => {
                    out.insert(p, Value::String(normal_words(s)));
                }
                ("enum" | "const" | "default" | "examples", _) => {}
                _ => collect_text(x, &p, out),
            }
        }
    } else if let Value::Array(a) = v {
        for (i, x) in a.iter().enumerate() {
            collect_text(x, &format!("{path}/{i}"), out);
        }
    }
}

/// Words as the text rules compare them: every run of whitespace one space.
pub fn normal_words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn short_hash(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The tools of a tools/list result: `{"tools": [...]}`, a JSON-RPC response
/// `{"result": {"tools": [...]}}`, or a bare array. Duplicate names are an error.
pub fn tools_from_json(v: &Value) -> Result<Vec<Tool>, String> {
    let list = match v {
        Value::Array(a) => a,
        Value::Object(o) => match (o.get("tools"), o.get("result").and_then(|r| r.get("tools"))) {
            (Some(Value::Array(a)), _) | (None, Some(Value::Array(a))) => a,
            (Some(other), _) => {
                return Err(format!("\"tools\" must be an array, got {}", kind(other)));
            }
            _ => return Err("no \"tools\" array (expected a tools/list result)".into()),
        },
        other => {
            return Err(format!(
                "expected a tools/list result (an object with \"tools\"), got {}",
                kind(other)
            ));
        }
    };
    let mut seen = BTreeSet::new();
    list.iter()
        .enumerate()
        .map(|(i, t)| {
            let tool = Tool::from_json(t).map_err(|e| format!("tools[{i}]: {e}"))?;
            if !seen.insert(tool.name.clone()) {
                return Err(format!("tools[{i}]: tool '{}' is listed twice", tool.name));
            }
            Ok(tool)
        })
        .collect()
}

/// One classified difference between two snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub rule: String,
    pub direction: Direction,
    pub severity: Severity,
    pub action: Action,
    /// The tool in the new snapshot (the old name for a removed tool).
    pub tool: String,
    /// JSON pointer into the tool object (`/inputSchema/properties/query`); empty for the
    /// tool itself.
    pub path: String,
    pub message: String,
    /// The old and new value at `path`, JSON text (None when absent).
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Change {
    /// A change of rule `id`, its direction, severity and action from the rules table.
    pub fn new(
        id: &str,
        tool: &str,
        path: &str,
        message: String,
        before: Option<&Value>,
        after: Option<&Value>,
    ) -> Change {
        let r = rules::rule(id);
        Change {
            rule: r.id.clone(),
            direction: r.direction,
            severity: r.severity,
            action: r.action,
            tool: tool.to_string(),
            path: path.to_string(),
            message,
            before: before.map(Value::to_string),
            after: after.map(Value::to_string),
        }
    }

    /// Stable id of this change for ignore files: the same change between the same
    /// schemas has the same fingerprint in every run.
    pub fn fingerprint(&self) -> String {
        short_hash(&format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
            self.rule,
            self.tool,
            self.path,
            self.before.as_deref().unwrap_or(""),
            self.after.as_deref().unwrap_or("")
        ))
    }
}

/// Name similarity in [0, 1]: 1 when one name contains the other (query → search_query),
/// else Jaro-Winkler, case-insensitive.
pub fn name_similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    if a.contains(&b) || b.contains(&a) {
        return 1.0;
    }
    strsim::jaro_winkler(&a, &b)
}

/// Every pair when there are few; beyond 250,000 pairs, only the pairs that share
/// evidence, found through indexes so the cost stays near linear (a release that renames
/// 10,000 tools): the same structure, the same description, or a parameter name, each
/// within buckets small enough to mean something (at most 50 tools a side).
fn candidates<T>(
    rs: &[T],
    ads: &[T],
    key: impl Fn(&T) -> (&Option<String>, &String, &BTreeSet<String>),
) -> Vec<(usize, usize)> {
    if rs.len().saturating_mul(ads.len()) <= 250_000 {
        return (0..rs.len())
            .flat_map(|i| (0..ads.len()).map(move |j| (i, j)))
            .collect();
    }
    const BUCKET: usize = 50;
    // (kind of evidence, its value) -> (removed tools, added tools) that have it.
    type Buckets<'k> = BTreeMap<(u8, &'k str), (Vec<usize>, Vec<usize>)>;
    let mut by: Buckets = BTreeMap::new();
    for (side, items) in [(0, rs), (1, ads)] {
        for (i, t) in items.iter().enumerate() {
            let (shape, desc, params) = key(t);
            let mut keys: Vec<(u8, &str)> = Vec::new();
            if let Some(s) = shape {
                keys.push((0, s.as_str()));
            }
            if !desc.is_empty() {
                keys.push((1, desc.as_str()));
            }
            keys.extend(params.iter().map(|p| (2, p.as_str())));
            for k in keys {
                let e = by.entry(k).or_default();
                if side == 0 { e.0.push(i) } else { e.1.push(i) }
            }
        }
    }
    let mut out = BTreeSet::new();
    for (a, b) in by.values() {
        if a.len() <= BUCKET && b.len() <= BUCKET {
            for i in a {
                for j in b {
                    out.insert((*i, *j));
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Pairs removed and added names by score (best first, ties by name), each name used once.
pub(crate) fn pair_up(
    removed: &[String],
    added: &[String],
    score: impl Fn(&str, &str) -> Option<f64>,
) -> Vec<(String, String)> {
    let mut cands: Vec<(f64, &String, &String)> = removed
        .iter()
        .flat_map(|r| added.iter().map(move |a| (r, a)))
        .filter_map(|(r, a)| score(r, a).map(|s| (s, r, a)))
        .collect();
    cands.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| (x.1, x.2).cmp(&(y.1, y.2)))
    });
    let (mut used_r, mut used_a) = (BTreeSet::new(), BTreeSet::new());
    let mut out = Vec::new();
    for (_, r, a) in cands {
        if !used_r.contains(r) && !used_a.contains(a) {
            used_r.insert(r.clone());
            used_a.insert(a.clone());
            out.push((r.clone(), a.clone()));
        }
    }
    out
}

/// Every change from `old` to `new` (one server's tools), ordered by tool, path and rule.
/// Identical canonical tools give no change.
pub fn diff(old: &[Tool], new: &[Tool]) -> Vec<Change> {
    diff_in(old, new, &[])
}

/// `diff` for a server among others: `elsewhere` are the tool names of the other servers
/// a model sees beside it, so the text review also reads rules over those tools
/// (shadowing across servers).
pub fn diff_in(old: &[Tool], new: &[Tool], elsewhere: &[String]) -> Vec<Change> {
    let olds: BTreeMap<&str, &Tool> = old.iter().map(|t| (t.name.as_str(), t)).collect();
    let news: BTreeMap<&str, &Tool> = new.iter().map(|t| (t.name.as_str(), t)).collect();
    let names: Vec<String> = news
        .keys()
        .map(|s| s.to_string())
        .chain(elsewhere.iter().cloned())
        .collect();
    let removed: Vec<String> = olds
        .keys()
        .filter(|n| !news.contains_key(*n))
        .map(|s| s.to_string())
        .collect();
    let added: Vec<String> = news
        .keys()
        .filter(|n| !olds.contains_key(*n))
        .map(|s| s.to_string())
        .collect();
    // Structure hashes once per unmatched tool, not once per pair: only tools that take
    // parameters count (an empty schema says nothing about identity).
    let shape = |t: &Tool| {
        t.input_schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty())
            .then(|| t.schema_hash())
    };
    let old_shapes: BTreeMap<&str, Option<String>> = removed
        .iter()
        .map(|r| (r.as_str(), shape(olds[r.as_str()])))
        .collect();
    let new_shapes: BTreeMap<&str, Option<String>> = added
        .iter()
        .map(|a| (a.as_str(), shape(news[a.as_str()])))
        .collect();
    // A rename needs evidence beyond the name: the same structure, or a similar name and
    // a similar description or mostly the same parameters. Several old tools that could
    // each have become one new tool are a consolidation: removals and an addition.
    struct Side<'t> {
        name: &'t str,
        shape: Option<String>,
        desc: String,
        params: BTreeSet<String>,
    }
    fn side<'t>(name: &'t str, t: &Tool, shape: &Option<String>) -> Side<'t> {
        Side {
            name,
            shape: shape.clone(),
            desc: t
                .description
                .as_deref()
                .map(normal_words)
                .unwrap_or_default(),
            params: t
                .input_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
        }
    }
    let rs: Vec<Side> = removed
        .iter()
        .map(|r| side(r, olds[r.as_str()], &old_shapes[r.as_str()]))
        .collect();
    let ads: Vec<Side> = added
        .iter()
        .map(|a| side(a, news[a.as_str()], &new_shapes[a.as_str()]))
        .collect();
    let score = |o: &Side, n: &Side| -> Option<f64> {
        let s = name_similarity(o.name, n.name);
        if o.shape.is_some() && o.shape == n.shape {
            return Some(s + 1.0);
        }
        if s < 0.8 {
            return None;
        }
        let described =
            !o.desc.is_empty() && schema::description_similarity(&o.desc, &n.desc) >= 0.6;
        let shared = o.params.intersection(&n.params).count();
        let union = o.params.union(&n.params).count();
        let overlap = union > 0 && shared as f64 / union as f64 >= 0.5;
        (described || overlap).then_some(s)
    };
    let cands: Vec<(f64, usize, usize)> = candidates(&rs, &ads, |o| (&o.shape, &o.desc, &o.params))
        .into_iter()
        .filter_map(|(i, j)| score(&rs[i], &ads[j]).map(|s| (s, i, j)))
        .collect();
    let mut into: BTreeMap<usize, usize> = BTreeMap::new();
    for (_, _, j) in &cands {
        *into.entry(*j).or_default() += 1;
    }
    let mut cands: Vec<(f64, usize, usize)> =
        cands.into_iter().filter(|(_, _, j)| into[j] < 2).collect();
    cands.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| (rs[x.1].name, ads[x.2].name).cmp(&(rs[y.1].name, ads[y.2].name)))
    });
    let (mut used_r, mut used_a) = (BTreeSet::new(), BTreeSet::new());
    let mut renames: Vec<(String, String)> = Vec::new();
    for (_, i, j) in cands {
        if used_r.insert(i) {
            if used_a.insert(j) {
                renames.push((rs[i].name.to_string(), ads[j].name.to_string()));
            } else {
                used_r.remove(&i);
            }
        }
    }
    let renamed_from: BTreeSet<&str> = renames.iter().map(|(r, _)| r.as_str()).collect();
    let renamed_to: BTreeSet<&str> = renames.iter().map(|(_, a)| a.as_str()).collect();
    let mut out = Vec::new();
    for (r, a) in &renames {
        out.push(Change::new(
            "tool-likely-renamed",
            a,
            "",
            format!("tool '{r}' likely renamed to '{a}'"),
            Some(&Value::String(r.clone())),
            Some(&Value::String(a.clone())),
        ));
        schema::diff_tool(olds[r.as_str()], news[a.as_str()], &names, &mut out);
    }
    for r in removed
        .iter()
        .filter(|r| !renamed_from.contains(r.as_str()))
    {
        out.push(Change::new(
            "tool-removed",
            r,
            "",
            format!("tool '{r}' was removed"),
            Some(&Value::String(r.clone())),
            None,
        ));
    }
    for a in added.iter().filter(|a| !renamed_to.contains(a.as_str())) {
        out.push(Change::new(
            "tool-added",
            a,
            "",
            format!("tool '{a}' was added"),
            None,
            Some(&Value::String(a.clone())),
        ));
        text::check_new_tool(news[a.as_str()], &names, &mut out);
    }
    for (name, o) in &olds {
        if let Some(n) = news.get(name) {
            schema::diff_tool(o, n, &names, &mut out);
        }
    }
    out.sort_by(|a, b| {
        (&a.tool, &a.path, &a.rule, &a.before, &a.after)
            .cmp(&(&b.tool, &b.path, &b.rule, &b.before, &b.after))
    });
    out
}
