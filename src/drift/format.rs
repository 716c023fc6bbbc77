//! `groundcheck drift` outputs: a text table, JSON, a Markdown changelog, SARIF 2.1.0,
//! JUnit XML and GitHub workflow annotations. Every format lists the same changes in the
//! same order (tool, path, rule).

use groundcheck_udfs::changes::{Action, Change, rules};
use serde_json::{Value, json};

use crate::drift::{Drift, Version};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum DriftFormat {
    Table,
    Json,
    Markdown,
    Sarif,
    Junit,
    Github,
    /// One self-contained page: the changes by severity per tool, and every change.
    Html,
}

pub fn render(d: &Drift, format: DriftFormat) -> crate::error::Result<String> {
    Ok(match format {
        // Text a terminal or a CI log shows: a tool's name or description can carry NUL,
        // ESC or a right-to-left override, which would rewrite what the reader sees.
        DriftFormat::Table => visible(&table(d)),
        DriftFormat::Json => serde_json::to_string_pretty(&to_json(d)).expect("json") + "\n",
        DriftFormat::Markdown => visible(&markdown(d)),
        // JSON escapes control characters itself.
        DriftFormat::Sarif => serde_json::to_string_pretty(&sarif(d)).expect("json") + "\n",
        DriftFormat::Junit => junit(d),
        DriftFormat::Github => visible(&github(d)),
        DriftFormat::Html => html(d)?,
    })
}

/// A character that must not reach a reader raw: control characters (but the line
/// breaks the formats write) and the bidirectional controls that reorder text.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every hidden character written out as `\u{…}`.
fn visible(s: &str) -> String {
    if !s.chars().any(hidden) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if hidden(c) {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The HTML page: a stacked bar per tool of its changes by severity (at most 40 tools,
/// those with the most changes), then the table every format lists.
fn html(d: &Drift) -> crate::error::Result<String> {
    use groundcheck_udfs::changes::rules::Severity;
    use std::collections::BTreeMap;

    use crate::output::html::{chart, page};
    let mut per_tool: BTreeMap<&str, [f64; 5]> = BTreeMap::new();
    for c in &d.changes {
        let i = Severity::ALL
            .iter()
            .position(|s| *s == c.severity)
            .unwrap_or(0);
        per_tool.entry(c.tool.as_str()).or_default()[i] += 1.0;
    }
    let mut tools: Vec<(&str, [f64; 5])> = per_tool.into_iter().collect();
    // Most changes first; ties by name, so the page is the same for the same drift.
    tools.sort_by(|a, b| {
        let n = |t: &[f64; 5]| t.iter().sum::<f64>();
        n(&b.1).total_cmp(&n(&a.1)).then(a.0.cmp(b.0))
    });
    let shown = tools.len().min(40);
    let cats: Vec<String> = tools[..shown].iter().map(|t| t.0.to_string()).collect();
    let series: Vec<(String, Vec<f64>)> = Severity::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.as_str().to_string(),
                tools[..shown].iter().map(|t| t.1[i]).collect(),
            )
        })
        .collect();
    let mut plots = Vec::new();
    if !d.changes.is_empty() {
        let mut caption =
            "Changes per tool, stacked by severity (the rules table, after overrides and ignores)."
                .to_string();
        if tools.len() > shown {
            caption.push_str(&format!(
                " The {shown} tools with the most changes of {}; the table lists all.",
                tools.len()
            ));
        }
        plots.push(page::Plot {
            id: "severity".into(),
            title: "Changes by severity per tool".into(),
            caption,
            svg: chart::bars_with("changes", &cats, &series, true, &chart::SEVERITY)?,
        });
    }
    let page = page::DriftPage {
        title: format!("groundcheck drift: {}", d.server()),
        summary: summary(d),
        block: d.count(Action::Block),
        warn: d.count(Action::Warn),
        allow: d.count(Action::Allow),
        changes: d
            .changes
            .iter()
            .map(|c| page::ChangeRow {
                action: c.action.as_str().into(),
                severity: c.severity.as_str().into(),
                tool: c.tool.clone(),
                path: c.path.clone(),
                rule: c.rule.clone(),
                message: c.message.clone(),
                before: c.before.clone(),
                after: c.after.clone(),
            })
            .collect(),
        versions: d.versions.iter().map(version_line).collect(),
        replay: d.replay.clone(),
        plots,
    };
    crate::output::html::drift(&page)
}

fn when(s: &crate::drift::snapshot::Snapshot) -> String {
    s.captured_at.clone().unwrap_or_else(|| s.source.clone())
}

fn summary(d: &Drift) -> String {
    format!(
        "{}: {} -> {}: {} change(s): {} block, {} warn, {} allow; {} ignored",
        d.server(),
        when(&d.old),
        when(&d.new),
        d.changes.len(),
        d.count(Action::Block),
        d.count(Action::Warn),
        d.count(Action::Allow),
        d.ignored
    )
}

fn version_line(v: &Version) -> String {
    let who = v
        .tool
        .as_ref()
        .map(|t| format!("tool '{t}'"))
        .unwrap_or_else(|| "server".into());
    let mut s = format!("{who}: needs {}", v.needed.as_str());
    match (&v.old, &v.new) {
        (Some(o), Some(n)) => s += &format!(", declared {o} -> {n}"),
        (None, Some(n)) => s += &format!(", declared {n}"),
        _ => s += ", no declared version",
    }
    if let Some(p) = &v.problem {
        s += &format!(": ERROR {p}");
    }
    if let Some(n) = &v.note {
        s += &format!(" ({n})");
    }
    if let Some((ok, why)) = &v.client {
        s += &format!(
            "; client {}: {why}",
            if *ok {
                "may call it"
            } else {
                "may NOT call it"
            }
        );
    }
    s
}

fn table(d: &Drift) -> String {
    let mut out = summary(d) + "\n";
    let rows: Vec<Vec<String>> = d
        .changes
        .iter()
        .map(|c| {
            vec![
                c.action.as_str().to_uppercase(),
                c.severity.to_string(),
                c.tool.clone(),
                c.message.clone(),
                format!("{} {}", c.rule, c.fingerprint()),
            ]
        })
        .collect();
    if !rows.is_empty() {
        out += &crate::output::text::align_left(&rows);
    }
    for v in &d.versions {
        out += &format!("semver {}\n", version_line(v));
    }
    for r in &d.replay {
        out += &format!("replay {r}\n");
    }
    out
}

fn change_json(c: &Change) -> Value {
    json!({
        "rule": c.rule,
        "direction": c.direction.as_str(),
        "severity": c.severity.as_str(),
        "action": c.action.as_str(),
        "tool": c.tool,
        "path": c.path,
        "message": c.message,
        "before": c.before.as_deref().map(|s| serde_json::from_str::<Value>(s).unwrap_or(Value::Null)),
        "after": c.after.as_deref().map(|s| serde_json::from_str::<Value>(s).unwrap_or(Value::Null)),
        "fingerprint": c.fingerprint(),
    })
}

pub fn to_json(d: &Drift) -> Value {
    let snap = |s: &crate::drift::snapshot::Snapshot| {
        json!({"source": s.source, "server": s.server, "server_version": s.server_version,
               "captured_at": s.captured_at, "tools": s.tools.len()})
    };
    json!({
        "server": d.server(),
        "old": snap(&d.old),
        "new": snap(&d.new),
        "summary": {"changes": d.changes.len(), "block": d.count(Action::Block),
                    "warn": d.count(Action::Warn), "allow": d.count(Action::Allow), "ignored": d.ignored},
        "changes": d.changes.iter().map(change_json).collect::<Vec<_>>(),
        "semver": d.versions.iter().map(|v| json!({
            "tool": v.tool, "old": v.old, "new": v.new, "needed": v.needed.as_str(),
            "problem": v.problem,
            "client": v.client.as_ref().map(|(ok, why)| json!({"range": d.client_range, "allowed": ok, "why": why})),
        })).collect::<Vec<_>>(),
        "replay": d.replay,
    })
}

fn markdown(d: &Drift) -> String {
    let mut out = format!(
        "# Tool changes: {}\n\n{} → {}\n\n",
        d.server(),
        when(&d.old),
        when(&d.new)
    );
    // By what the gate does with a change (a review-severity change that blocks, such as
    // suspicious wording, is listed as blocking).
    let sections = [
        ("Blocking", Action::Block),
        ("Warnings", Action::Warn),
        ("Allowed", Action::Allow),
    ];
    for (title, action) in sections {
        let cs: Vec<&Change> = d.changes.iter().filter(|c| c.action == action).collect();
        if cs.is_empty() {
            continue;
        }
        out += &format!("## {title}\n\n");
        for c in cs {
            out += &format!(
                "- **{}**: {} (`{}`, {}, {})\n",
                c.tool, c.message, c.rule, c.severity, c.action
            );
        }
        out += "\n";
    }
    if d.changes.is_empty() {
        out += "No changes.\n\n";
    }
    out += "## Versions\n\n";
    for v in &d.versions {
        out += &format!("- {}\n", version_line(v));
    }
    if !d.replay.is_empty() {
        out += "\n## Recorded calls against the new schemas\n\n";
        for r in &d.replay {
            out += &format!("- {r}\n");
        }
    }
    if d.ignored > 0 {
        out += &format!("\n{} change(s) ignored by the ignore file.\n", d.ignored);
    }
    out
}

/// SARIF rules for the version findings that fail a run.
fn level(a: Action) -> &'static str {
    match a {
        Action::Block => "error",
        Action::Warn => "warning",
        Action::Allow => "note",
    }
}

/// A SARIF artifactLocation for a snapshot's source: a file inside the working directory
/// as a repository-relative URI (`uriBaseId` %SRCROOT%, what code scanning resolves), any
/// other file as a `file://` URI, an http(s) server as its URL, and a `stdio:` server as a
/// `stdio:` URI with its command line percent-encoded. SARIF requires RFC 3986 URIs; a
/// command line with spaces is not one.
pub fn artifact(source: &str) -> Value {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    // Everything but RFC 3986's unreserved characters and the path's '/'.
    const PATH: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'`')
        .add(b'{')
        .add(b'}')
        .add(b'|')
        .add(b'\\')
        .add(b'^')
        .add(b'[')
        .add(b']')
        .add(b'\'')
        .add(b'@')
        .add(b'!')
        .add(b'$')
        .add(b'&')
        .add(b'(')
        .add(b')')
        .add(b'*')
        .add(b'+')
        .add(b',')
        .add(b';')
        .add(b'=')
        .add(b':');
    let enc = |s: &str| utf8_percent_encode(s, PATH).to_string();
    if source.starts_with("http://") || source.starts_with("https://") {
        return json!({"uri": source});
    }
    if let Some(cmd) = source.strip_prefix("stdio:") {
        return json!({"uri": format!("stdio:{}", enc(cmd.trim()))});
    }
    let file = source.split_once('@').map_or(source, |(p, at)| {
        if at.len() >= 10 && at.as_bytes().get(4) == Some(&b'-') {
            p
        } else {
            source
        }
    });
    let path = std::path::Path::new(file);
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let abs = crate::store::location::lexical(&abs);
    if let Some(rel) = std::env::current_dir().ok().and_then(|cwd| {
        abs.strip_prefix(crate::store::location::lexical(&cwd))
            .ok()
            .map(|r| r.to_path_buf())
    }) {
        let rel = rel.to_string_lossy().replace('\\', "/");
        return json!({"uri": enc(&rel), "uriBaseId": "%SRCROOT%"});
    }
    json!({"uri": format!("file://{}", enc(&abs.to_string_lossy()))})
}

fn sarif(d: &Drift) -> Value {
    let mut used: Vec<&str> = d.changes.iter().map(|c| c.rule.as_str()).collect();
    used.sort();
    used.dedup();
    let rules_json: Vec<Value> = used
        .iter()
        .map(|id| {
            let r = rules::rule(id);
            json!({"id": r.id, "shortDescription": {"text": r.text},
                   "defaultConfiguration": {"level": level(r.action)},
                   "properties": {"severity": r.severity.as_str(), "direction": r.direction.as_str()}})
        })
        .collect();
    let results: Vec<Value> = d
        .changes
        .iter()
        .map(|c| {
            json!({
                "ruleId": c.rule,
                "level": level(c.action),
                "message": {"text": format!("{}: {}", c.tool, c.message)},
                "locations": [{
                    "physicalLocation": {"artifactLocation": artifact(&d.new.source)},
                    "logicalLocations": [{"name": c.tool, "fullyQualifiedName": format!("{}{}", c.tool, c.path), "kind": "member"}],
                }],
                "partialFingerprints": {"groundcheckChange/v1": c.fingerprint()},
                "properties": {"severity": c.severity.as_str(), "path": c.path},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "groundcheck", "version": env!("CARGO_PKG_VERSION"), "rules": rules_json}},
            "results": results,
        }],
    })
}

/// Text for XML 1.0: escaped, and the characters XML 1.0 cannot hold at all (most
/// control characters, even as references) written out as `\u{…}`.
fn xml(s: &str) -> String {
    visible(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

fn junit(d: &Drift) -> String {
    let mut tools: Vec<String> = d.new.tools.iter().map(|t| t.name.clone()).collect();
    tools.extend(d.changes.iter().map(|c| c.tool.clone()));
    tools.sort();
    tools.dedup();
    let server = d.server();
    let mut cases = String::new();
    let mut failures = 0;
    for t in &tools {
        let cs: Vec<&Change> = d.changes.iter().filter(|c| &c.tool == t).collect();
        let blocking: Vec<&&Change> = cs.iter().filter(|c| c.action == Action::Block).collect();
        cases += &format!(
            "    <testcase classname=\"{}\" name=\"{}\">\n",
            xml(&server),
            xml(t)
        );
        if !blocking.is_empty() {
            failures += 1;
            let lines: Vec<String> = blocking
                .iter()
                .map(|c| format!("{} [{}]", c.message, c.rule))
                .collect();
            cases += &format!(
                "      <failure message=\"{}\" type=\"drift\">{}</failure>\n",
                xml(&lines[0]),
                xml(&lines.join("\n"))
            );
        }
        let rest: Vec<String> = cs
            .iter()
            .filter(|c| c.action != Action::Block)
            .map(|c| format!("{}: {} [{}]", c.action, c.message, c.rule))
            .collect();
        if !rest.is_empty() {
            cases += &format!("      <system-out>{}</system-out>\n", xml(&rest.join("\n")));
        }
        cases += "    </testcase>\n";
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"groundcheck drift {}\" tests=\"{}\" failures=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
        xml(&server),
        tools.len(),
        failures,
        cases
    )
}

fn gh(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn github(d: &Drift) -> String {
    let file = if d.new.source.contains("://") || d.new.source.starts_with("stdio:") {
        String::new()
    } else {
        format!(
            "file={},",
            gh(&d.new.source).replace(',', "%2C").replace(':', "%3A")
        )
    };
    let mut out = String::new();
    for c in &d.changes {
        let kind = match c.action {
            Action::Block => "error",
            Action::Warn => "warning",
            Action::Allow => "notice",
        };
        out += &format!(
            "::{kind} {file}title={}::{}\n",
            gh(&c.rule).replace(',', "%2C").replace(':', "%3A"),
            gh(&format!(
                "{}: {} ({}, fingerprint {})",
                c.tool,
                c.message,
                c.severity,
                c.fingerprint()
            ))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{artifact, visible, xml};

    #[test]
    fn sarif_locations_are_uris() {
        assert_eq!(
            artifact("stdio:npx -y @modelcontextprotocol/server-everything")["uri"],
            "stdio:npx%20-y%20%40modelcontextprotocol/server-everything"
        );
        assert_eq!(
            artifact("https://mcp.example.com/mcp")["uri"],
            "https://mcp.example.com/mcp"
        );
        let here = artifact("snapshots/../tools v2.json");
        assert_eq!(here["uri"], "tools%20v2.json");
        assert_eq!(here["uriBaseId"], "%SRCROOT%");
        assert_eq!(
            artifact("/nowhere/x.json@2026-03-01T09:00:00Z")["uri"],
            "file:///nowhere/x.json"
        );
    }

    #[test]
    fn hidden_characters_are_written_out() {
        assert_eq!(
            visible("a\u{0}b\u{1b}[31m\u{202e}c\nd"),
            "a\\u{0}b\\u{1b}[31m\\u{202e}c\nd"
        );
        assert_eq!(visible("plain"), "plain");
        // XML 1.0 cannot hold U+0001 even as &#1;.
        assert_eq!(xml("x\u{1}<y>"), "x\\u{1}&lt;y&gt;");
    }
}
