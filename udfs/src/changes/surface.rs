//! The rest of a server's surface: prompts (and their arguments), resources, resource
//! templates, the server's instructions and its capabilities. Same rules-as-data table,
//! same changes; a change's `tool` names what changed: `prompt:NAME`, `resource:URI`,
//! `template:NAME`, or `server`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Change, name_similarity, pair_up, text};

/// What a server offers besides tools, as its list answers and initialize give them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    pub instructions: Option<String>,
    pub capabilities: Option<Value>,
}

impl Surface {
    /// From a capture: `{"prompts", "resources", "resourceTemplates", "instructions",
    /// "capabilities"}`, each optional; `initialize` (an initialize result) gives the last
    /// two. None when the document names none of them.
    pub fn from_json(v: &Value) -> Option<Surface> {
        let init = v.get("initialize").or_else(|| v.get("result"));
        let list = |k: &str| v.get(k).and_then(Value::as_array).cloned();
        let (p, r, t) = (
            list("prompts"),
            list("resources"),
            list("resourceTemplates"),
        );
        let instructions = v
            .get("instructions")
            .or_else(|| init.and_then(|i| i.get("instructions")))
            .and_then(Value::as_str)
            .map(str::to_string);
        let capabilities = v
            .get("capabilities")
            .or_else(|| init.and_then(|i| i.get("capabilities")))
            .cloned();
        if p.is_none() && r.is_none() && t.is_none() && capabilities.is_none() {
            return None;
        }
        Some(Surface {
            prompts: p.unwrap_or_default(),
            resources: r.unwrap_or_default(),
            templates: t.unwrap_or_default(),
            instructions,
            capabilities,
        })
    }
}

fn by(items: &[Value], key: &str) -> BTreeMap<String, Value> {
    items
        .iter()
        .filter_map(|v| Some((v.get(key)?.as_str()?.to_string(), v.clone())))
        .collect()
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// (argument name -> required) of a prompt.
fn arguments(p: &Value) -> BTreeMap<String, (bool, Option<String>)> {
    p.get("arguments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| {
                    Some((
                        s(x, "name")?.to_string(),
                        (
                            x.get("required").and_then(Value::as_bool) == Some(true),
                            s(x, "description").map(str::to_string),
                        ),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The review of a new prompt's, resource's or template's wording: title, description
/// and each argument's description.
fn new_text(id: &str, what: &str, v: &Value, tools: &[String], out: &mut Vec<Change>) {
    for k in ["title", "description"] {
        text::suspicious(id, &format!("/{k}"), what, None, s(v, k), tools, out);
    }
    for (arg, (_, d)) in arguments(v) {
        let label = format!("{what} argument '{arg}'");
        text::suspicious(
            id,
            &format!("/arguments/{arg}/description"),
            &label,
            None,
            d.as_deref(),
            tools,
            out,
        );
    }
}

/// Every string of the surface a model reads, by what it belongs to and JSON pointer:
/// prompts' and their arguments', resources' and templates' titles and descriptions, the
/// server's instructions.
pub fn model_strings(v: &Surface) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (kind, items, key) in [
        ("prompt", &v.prompts, "name"),
        ("resource", &v.resources, "uri"),
        ("template", &v.templates, "name"),
    ] {
        for (name, item) in by(items, key) {
            for k in ["title", "description"] {
                if let Some(t) = s(&item, k) {
                    out.push((format!("{kind}:{name}/{k}"), t.to_string()));
                }
            }
            for (arg, (_, d)) in arguments(&item) {
                if let Some(d) = d {
                    out.push((format!("{kind}:{name}/arguments/{arg}/description"), d));
                }
            }
        }
    }
    if let Some(i) = &v.instructions {
        out.push(("server/instructions".into(), i.clone()));
    }
    out
}

fn string(x: &str) -> Value {
    Value::String(x.to_string())
}

/// Every change from `old` to `new`, ordered by what changed, path and rule. `tools`: the
/// tools of the project's other servers, "another tool" to the text review of prompts,
/// resources and instructions (this server's own tools are what its instructions are
/// about: "use firecrawl_map to list a site's URLs" is guidance, not a call ordered
/// elsewhere).
pub fn diff(old: &Surface, new: &Surface, tools: &[String]) -> Vec<Change> {
    let mut out = Vec::new();
    prompts(old, new, tools, &mut out);
    templates(old, new, tools, &mut out);
    resources(old, new, tools, &mut out);
    if old.instructions != new.instructions {
        let (a, b) = (old.instructions.as_deref(), new.instructions.as_deref());
        let reformatted =
            matches!((a, b), (Some(a), Some(b)) if a.split_whitespace().eq(b.split_whitespace()));
        if !reformatted {
            out.push(Change::new(
                "server-instructions-changed",
                "server",
                "/instructions",
                "the server's instructions (read by the model) changed".to_string(),
                a.map(string).as_ref(),
                b.map(string).as_ref(),
            ));
            text::suspicious("server", "/instructions", "server", a, b, tools, &mut out);
        }
    }
    capabilities(old, new, &mut out);
    out.sort_by(|a, b| (&a.tool, &a.path, &a.rule).cmp(&(&b.tool, &b.path, &b.rule)));
    out
}

fn prompts(old: &Surface, new: &Surface, tools: &[String], out: &mut Vec<Change>) {
    let (o, n) = (by(&old.prompts, "name"), by(&new.prompts, "name"));
    let removed: Vec<String> = o.keys().filter(|k| !n.contains_key(*k)).cloned().collect();
    let added: Vec<String> = n.keys().filter(|k| !o.contains_key(*k)).cloned().collect();
    let renames = pair_up(&removed, &added, |r, a| {
        let sim = name_similarity(r, a);
        (sim >= 0.8).then_some(sim)
    });
    for (r, a) in &renames {
        out.push(Change::new(
            "prompt-likely-renamed",
            &format!("prompt:{a}"),
            "",
            format!("prompt '{r}' likely renamed to '{a}'"),
            Some(&string(r)),
            Some(&string(a)),
        ));
        prompt(a, &o[r], &n[a], tools, out);
    }
    for r in removed
        .iter()
        .filter(|r| !renames.iter().any(|(x, _)| x == *r))
    {
        out.push(Change::new(
            "prompt-removed",
            &format!("prompt:{r}"),
            "",
            format!("prompt '{r}' was removed"),
            Some(&string(r)),
            None,
        ));
    }
    for a in added
        .iter()
        .filter(|a| !renames.iter().any(|(_, x)| x == *a))
    {
        out.push(Change::new(
            "prompt-added",
            &format!("prompt:{a}"),
            "",
            format!("prompt '{a}' was added"),
            None,
            Some(&string(a)),
        ));
        new_text(
            &format!("prompt:{a}"),
            &format!("prompt '{a}'"),
            &n[a],
            tools,
            out,
        );
    }
    for (name, ov) in &o {
        if let Some(nv) = n.get(name) {
            prompt(name, ov, nv, tools, out);
        }
    }
}

fn prompt(name: &str, o: &Value, n: &Value, tools: &[String], out: &mut Vec<Change>) {
    let id = format!("prompt:{name}");
    let what = format!("prompt '{name}'");
    for k in ["title", "description"] {
        text::text_change(&id, &format!("/{k}"), &what, s(o, k), s(n, k), tools, out);
    }
    let (oa, na) = (arguments(o), arguments(n));
    let names: BTreeSet<&String> = oa.keys().chain(na.keys()).collect();
    for arg in names {
        let p = format!("/arguments/{arg}");
        let label = format!("{what} argument '{arg}'");
        match (oa.get(arg), na.get(arg)) {
            (None, Some((required, d))) => {
                out.push(Change::new(
                    if *required {
                        "prompt-argument-added-required"
                    } else {
                        "prompt-argument-added-optional"
                    },
                    &id,
                    &p,
                    format!(
                        "{} {label} was added",
                        if *required { "required" } else { "optional" }
                    ),
                    None,
                    Some(&string(arg)),
                ));
                text::suspicious(
                    &id,
                    &format!("{p}/description"),
                    &label,
                    None,
                    d.as_deref(),
                    tools,
                    out,
                );
            }
            (Some(_), None) => out.push(Change::new(
                "prompt-argument-removed",
                &id,
                &p,
                format!("{label} was removed"),
                Some(&string(arg)),
                None,
            )),
            (Some((was, od)), Some((is, nd))) => {
                if was != is {
                    let (rule, now) = if *is {
                        ("prompt-argument-became-required", "required")
                    } else {
                        ("prompt-argument-became-optional", "optional")
                    };
                    out.push(Change::new(
                        rule,
                        &id,
                        &p,
                        format!("{label} became {now}"),
                        None,
                        None,
                    ));
                }
                text::text_change(
                    &id,
                    &format!("{p}/description"),
                    &label,
                    od.as_deref(),
                    nd.as_deref(),
                    tools,
                    out,
                );
            }
            (None, None) => {}
        }
    }
}

fn templates(old: &Surface, new: &Surface, tools: &[String], out: &mut Vec<Change>) {
    let (o, n) = (by(&old.templates, "name"), by(&new.templates, "name"));
    for (name, ov) in &o {
        let id = format!("template:{name}");
        let Some(nv) = n.get(name) else {
            out.push(Change::new(
                "resource-template-removed",
                &id,
                "",
                format!("resource template '{name}' was removed"),
                ov.get("uriTemplate"),
                None,
            ));
            continue;
        };
        if ov.get("uriTemplate") != nv.get("uriTemplate") {
            out.push(Change::new(
                "resource-template-uri-changed",
                &id,
                "/uriTemplate",
                format!(
                    "resource template '{name}' URI template changed from {} to {}",
                    ov.get("uriTemplate").unwrap_or(&Value::Null),
                    nv.get("uriTemplate").unwrap_or(&Value::Null)
                ),
                ov.get("uriTemplate"),
                nv.get("uriTemplate"),
            ));
        }
        if ov.get("mimeType") != nv.get("mimeType") {
            out.push(Change::new(
                "resource-mime-type-changed",
                &id,
                "/mimeType",
                format!("resource template '{name}' mimeType changed"),
                ov.get("mimeType"),
                nv.get("mimeType"),
            ));
        }
        let what = format!("resource template '{name}'");
        for k in ["title", "description"] {
            text::text_change(&id, &format!("/{k}"), &what, s(ov, k), s(nv, k), tools, out);
        }
    }
    for (name, nv) in n.iter().filter(|(k, _)| !o.contains_key(*k)) {
        out.push(Change::new(
            "resource-template-added",
            &format!("template:{name}"),
            "",
            format!("resource template '{name}' was added"),
            None,
            nv.get("uriTemplate"),
        ));
        new_text(
            &format!("template:{name}"),
            &format!("resource template '{name}'"),
            nv,
            tools,
            out,
        );
    }
}

fn resources(old: &Surface, new: &Surface, tools: &[String], out: &mut Vec<Change>) {
    let (o, n) = (by(&old.resources, "uri"), by(&new.resources, "uri"));
    for (uri, ov) in &o {
        let id = format!("resource:{uri}");
        match n.get(uri) {
            None => out.push(Change::new(
                "resource-removed",
                &id,
                "",
                format!("resource {uri} is no longer listed"),
                Some(&string(uri)),
                None,
            )),
            Some(nv) => {
                if ov.get("mimeType") != nv.get("mimeType") {
                    out.push(Change::new(
                        "resource-mime-type-changed",
                        &id,
                        "/mimeType",
                        format!("resource {uri} mimeType changed"),
                        ov.get("mimeType"),
                        nv.get("mimeType"),
                    ));
                }
                let what = format!("resource {uri}");
                for k in ["title", "description"] {
                    text::text_change(&id, &format!("/{k}"), &what, s(ov, k), s(nv, k), tools, out);
                }
            }
        }
    }
    for (uri, nv) in n.iter().filter(|(k, _)| !o.contains_key(*k)) {
        let id = format!("resource:{uri}");
        out.push(Change::new(
            "resource-added",
            &id,
            "",
            format!("resource {uri} is now listed"),
            None,
            Some(&string(uri)),
        ));
        new_text(&id, &format!("resource {uri}"), nv, tools, out);
    }
}

fn capabilities(old: &Surface, new: &Surface, out: &mut Vec<Change>) {
    let empty = serde_json::Map::new();
    let obj = |c: &Option<Value>| {
        c.as_ref()
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    let (o, n) = (obj(&old.capabilities), obj(&new.capabilities));
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for k in keys {
        let p = format!("/capabilities/{k}");
        // `experimental` holds non-standard features (the Python SDK wrote an empty one
        // for a while): a change there is for review, never a removed capability.
        let experimental = k == "experimental";
        match (o.get(k), n.get(k)) {
            (a, b) if experimental && a != b => out.push(Change::new(
                "capability-changed",
                "server",
                &p,
                "the server's experimental capabilities changed".to_string(),
                a,
                b,
            )),
            (Some(a), None) => out.push(Change::new(
                "capability-removed",
                "server",
                &p,
                format!("the server no longer offers the {k} capability"),
                Some(a),
                None,
            )),
            (None, Some(b)) => out.push(Change::new(
                "capability-added",
                "server",
                &p,
                format!("the server now offers the {k} capability"),
                None,
                Some(b),
            )),
            (Some(a), Some(b)) if a != b => out.push(Change::new(
                "capability-changed",
                "server",
                &p,
                format!("the server's {k} capability changed from {a} to {b}"),
                Some(a),
                Some(b),
            )),
            _ => {}
        }
    }
}
