//! `groundcheck drift`'s judgement: two snapshots diffed, severity overrides and an ignore
//! file applied, semver checked (suggested bump, under-bumped declared versions, a
//! client's range), and the verdict for CI.

pub mod format;
pub mod replay;
pub mod snapshot;

use std::collections::{BTreeMap, BTreeSet};

use groundcheck_udfs::changes::semver::{self, Bump};
use groundcheck_udfs::changes::{self, Action, Change, Severity, rules};

use crate::drift::snapshot::Snapshot;
use crate::error::{Error, Result};

/// When the run fails (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum FailOn {
    /// A change whose action is block: by default also an under-bumped version
    /// (`semver-problem`) and a client range the new version falls outside
    /// (`client-range-mismatch`) (seed 002: the decision defaults to block).
    Breaking,
    /// The same, and any change whose action is warn.
    Warning,
    /// Never: report only.
    Never,
}

/// `RULE=SEVERITY[:ACTION]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    pub rule: String,
    pub severity: Severity,
    pub action: Action,
}

impl Override {
    pub fn parse(s: &str) -> std::result::Result<Override, String> {
        let (rule, rest) = s
            .split_once('=')
            .ok_or_else(|| format!("expected RULE=SEVERITY[:ACTION], got '{s}'"))?;
        if rules::find(rule).is_none() {
            return Err(format!(
                "no drift rule '{rule}' (groundcheck drift --rules lists them)"
            ));
        }
        let (sev, act) = match rest.split_once(':') {
            Some((s, a)) => (s, Some(a)),
            None => (rest, None),
        };
        let severity = Severity::parse(sev).ok_or_else(|| {
            format!(
                "'{sev}' is not a severity (breaking, likely-breaking, warning, review, compatible)"
            )
        })?;
        let action = match act {
            Some(a) => Action::parse(a)
                .ok_or_else(|| format!("'{a}' is not an action (block, warn, allow)"))?,
            None => severity.default_action(),
        };
        Ok(Override {
            rule: rule.to_string(),
            severity,
            action,
        })
    }
}

/// An ignore file: one entry per line, `RULE FINGERPRINT` (that change only), `RULE`
/// (every change of the rule) or `FINGERPRINT`; `#` starts a comment.
#[derive(Debug, Clone, Default)]
pub struct Ignore {
    entries: Vec<(Option<String>, Option<String>)>,
}

impl Ignore {
    /// The ignore file at `path`, or nothing to ignore.
    pub fn read(path: Option<&std::path::Path>) -> Result<Ignore> {
        match path {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| {
                    Error::Config(format!("cannot read --ignore {}: {e}", p.display()))
                })?;
                Ignore::parse(&p.display().to_string(), &text)
            }
            None => Ok(Ignore::default()),
        }
    }

    pub fn parse(file: &str, text: &str) -> Result<Ignore> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let is_fp = |w: &str| w.len() == 16 && w.chars().all(|c| c.is_ascii_hexdigit());
            let bad = |why: String| Error::Input(format!("{file}:{}: {why}", i + 1));
            let rule = |w: &str| {
                rules::find(w)
                    .map(|r| r.id.clone())
                    .ok_or_else(|| bad(format!("no drift rule '{w}'")))
            };
            entries.push(match words.as_slice() {
                [w] if is_fp(w) => (None, Some(w.to_string())),
                [w] => (Some(rule(w)?), None),
                [r, f] if is_fp(f) => (Some(rule(r)?), Some(f.to_string())),
                _ => {
                    return Err(bad(format!(
                        "expected 'RULE FINGERPRINT', 'RULE' or 'FINGERPRINT', got '{line}'"
                    )));
                }
            });
        }
        Ok(Ignore { entries })
    }

    pub fn matches(&self, c: &Change) -> bool {
        let fp = c.fingerprint();
        self.entries.iter().any(|(r, f)| {
            r.as_ref().is_none_or(|r| *r == c.rule) && f.as_ref().is_none_or(|f| *f == fp)
        })
    }
}

/// The version verdict for one tool (or the whole server when `tool` is None).
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub tool: Option<String>,
    pub old: Option<String>,
    pub new: Option<String>,
    pub needed: Bump,
    /// Under-bumped, backwards, or not a version.
    pub problem: Option<String>,
    /// Whether a client pinned to --client-range may call the new version, and why.
    pub client: Option<(bool, String)>,
    /// Why a declared version was set aside (an SDK's own version).
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Drift {
    pub old: Snapshot,
    pub new: Snapshot,
    /// Changes after overrides, without the ignored ones.
    pub changes: Vec<Change>,
    pub ignored: usize,
    pub versions: Vec<Version>,
    pub client_range: Option<String>,
    /// With --replay: per tool, what the recorded calls would do against NEW.
    pub replay: Vec<String>,
}

pub struct Options<'a> {
    pub overrides: &'a [Override],
    pub ignore: &'a Ignore,
    pub client_range: Option<&'a str>,
    /// The other servers of the project (`--project`): tool-name collisions and wording
    /// about their tools are judged too.
    pub others: &'a [Snapshot],
}

pub fn judge(old: Snapshot, new: Snapshot, opts: &Options) -> Result<Drift> {
    if let Some(r) = opts.client_range {
        semver::allows(r, "0.0.0").map_err(|e| Error::Config(format!("--client-range: {e}")))?;
    }
    let mut changes = Vec::new();
    let mut ignored = 0;
    let others: Vec<&Snapshot> = opts
        .others
        .iter()
        .filter(|o| o.server.is_none() || (o.server != new.server && o.server != old.server))
        .collect();
    let elsewhere: Vec<String> = others
        .iter()
        .flat_map(|o| o.tools.iter().map(|t| t.name.clone()))
        .collect();
    // Prompts, resources, templates, instructions and capabilities, where both sides
    // carry them (a live server or a capture; stored rows hold tools only).
    let surface = match (&old.surface, &new.surface) {
        (Some(a), Some(b)) => changes::surface::diff(a, b, &elsewhere),
        _ => Vec::new(),
    };
    let across = across_servers(&old, &new, &others);
    let language = changes::language::switches(
        &old.tools,
        old.surface.as_ref(),
        &new.tools,
        new.surface.as_ref(),
    );
    for c in changes::diff_in(&old.tools, &new.tools, &elsewhere)
        .into_iter()
        .chain(surface)
        .chain(across)
        .chain(language)
    {
        match settle(c, opts) {
            Some(c) => changes.push(c),
            None => ignored += 1,
        }
    }
    let mut by_tool: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
    for c in changes
        .iter()
        .filter(|c| c.direction != groundcheck_udfs::changes::Direction::Server)
    {
        by_tool.entry(c.tool.as_str()).or_default().push(c);
    }
    let old_versions: BTreeMap<&str, &str> = old
        .tools
        .iter()
        .filter_map(|t| t.version.as_deref().map(|v| (t.name.as_str(), v)))
        .collect();
    let mut versions = Vec::new();
    let tools: BTreeSet<&str> = new
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .chain(by_tool.keys().copied())
        .collect();
    for name in tools {
        let cs = by_tool.get(name).cloned().unwrap_or_default();
        let needed = semver::needed(cs.iter().copied());
        let new_v = new
            .tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.version.clone());
        let old_v = old_versions.get(name).map(|s| s.to_string());
        if needed == Bump::None && new_v == old_v && opts.client_range.is_none() {
            continue;
        }
        versions.push(verdict(
            Some(name),
            old_v,
            new_v,
            needed,
            &cs,
            opts.client_range,
        ));
    }
    let all: Vec<&Change> = changes.iter().collect();
    let needed = semver::needed(all.iter().copied());
    // A version the SDK wrote for a server that declares none is not the server's.
    let (old_sv, old_lib, new_sv, new_lib) =
        declared(old.server_version.clone(), new.server_version.clone());
    let mut server = verdict(None, old_sv, new_sv, needed, &all, opts.client_range);
    let set_aside: Vec<String> = [old_lib, new_lib]
        .into_iter()
        .flatten()
        .map(|(v, sdk)| format!("{v} is the {sdk} SDK's own version"))
        .collect();
    if !set_aside.is_empty() {
        server.note = Some(format!(
            "{}, not the server's: not compared",
            set_aside.join(", ")
        ));
    }
    versions.push(server);
    // A version finding is a change like the others: in every format, overridable and
    // ignorable by rule or fingerprint.
    for v in &versions {
        let who = v.tool.clone().unwrap_or_else(|| "server".to_string());
        let found = [
            ("semver-problem", v.problem.clone()),
            (
                "client-range-mismatch",
                v.client.as_ref().filter(|c| !c.0).map(|c| c.1.clone()),
            ),
        ];
        for (id, message) in found {
            let Some(message) = message else { continue };
            let c = finding(
                id,
                &who,
                "/version",
                format!(
                    "{}: {message}",
                    if v.tool.is_some() {
                        format!("tool '{who}' version")
                    } else {
                        "server version".to_string()
                    }
                ),
                v.old.as_deref(),
                v.new.as_deref(),
            );
            match settle(c, opts) {
                Some(c) => changes.push(c),
                None => ignored += 1,
            }
        }
    }
    Ok(Drift {
        old,
        new,
        changes,
        ignored,
        versions,
        client_range: opts.client_range.map(str::to_string),
        replay: Vec::new(),
    })
}

/// A change under the run's `--override`s, or None when `--ignore` leaves it out.
fn settle(mut c: Change, opts: &Options) -> Option<Change> {
    if let Some(o) = opts.overrides.iter().rev().find(|o| o.rule == c.rule) {
        c.severity = o.severity;
        c.action = o.action;
    }
    (!opts.ignore.matches(&c)).then_some(c)
}

/// A change judged by `groundcheck drift` itself (not the schema diff), from its rule;
/// `before` and `after` are text.
fn finding(
    id: &str,
    tool: &str,
    path: &str,
    message: String,
    before: Option<&str>,
    after: Option<&str>,
) -> Change {
    let text = |s: Option<&str>| s.map(|s| serde_json::Value::String(s.to_string()));
    Change::new(
        id,
        tool,
        path,
        message,
        text(before).as_ref(),
        text(after).as_ref(),
    )
}

/// The new server among the project's others: a tool named like another server's
/// (`tool-name-collision`), and wording that gained another server's tool name
/// (`text-names-other-server-tool`; rules over such a tool are the text review's).
fn across_servers(old: &Snapshot, new: &Snapshot, others: &[&Snapshot]) -> Vec<Change> {
    let mut out = Vec::new();
    let server_of = |o: &Snapshot| o.server.clone().unwrap_or_else(|| o.source.clone());
    for t in &new.tools {
        for o in others {
            if o.tools.iter().any(|x| x.name == t.name) {
                let s = server_of(o);
                out.push(finding(
                    "tool-name-collision",
                    &t.name,
                    "",
                    format!("tool '{}' has the name of a tool of server '{s}'", t.name),
                    None,
                    Some(&s),
                ));
            }
        }
    }
    let words = |text: &str| -> std::collections::BTreeSet<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .map(str::to_lowercase)
            .collect()
    };
    let olds: BTreeMap<&str, &changes::Tool> =
        old.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let own: BTreeSet<&str> = new.tools.iter().map(|t| t.name.as_str()).collect();
    for t in &new.tools {
        let before: BTreeSet<String> = olds
            .get(t.name.as_str())
            .map(|o| {
                changes::text::model_strings(o)
                    .iter()
                    .flat_map(|(_, _, s)| words(s))
                    .collect()
            })
            .unwrap_or_default();
        for (path, kind, text) in changes::text::model_strings(t) {
            if kind == changes::text::Kind::Name {
                continue;
            }
            let w = words(&text);
            for o in others {
                for x in &o.tools {
                    let name = x.name.to_lowercase();
                    if name.len() >= 4
                        && !own.contains(x.name.as_str())
                        && w.contains(&name)
                        && !before.contains(&name)
                    {
                        out.push(finding(
                            "text-names-other-server-tool",
                            &t.name,
                            &path,
                            format!(
                                "tool '{}' {} names '{}', a tool of server '{}'",
                                t.name,
                                path.rsplit('/').next().unwrap_or("text"),
                                x.name,
                                server_of(o)
                            ),
                            None,
                            Some(&text),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// Versions the MCP SDKs report in serverInfo when a server declares none (the Python
/// SDK `mcp`, `fastmcp`): scripts/sdk-versions.sh refreshes the list.
const SDK_VERSIONS: &str = include_str!("sdk_versions.txt");

/// The SDK that reports `v` as its own version, if any.
fn sdk_of(v: &str) -> Option<String> {
    SDK_VERSIONS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .find(|(_, x)| *x == v)
        .map(|(p, _)| p.to_string())
}

type SetAside = Option<(String, String)>;

/// The server versions to compare, old and new, and those set aside as an SDK's own
/// (version, SDK). A version is set aside only with evidence beyond its number, which
/// servers that declare their own (often `1.0.0`) share with the SDKs' releases: both
/// sides SDK releases that differ (the library was upgraded), or one side an SDK release
/// and the other a declared version of another kind (2026.10.10 after mcp's 1.29.0). The
/// same SDK-looking version on both sides, or beside none, is taken as declared.
fn declared(
    old: Option<String>,
    new: Option<String>,
) -> (Option<String>, SetAside, Option<String>, SetAside) {
    let (Some(o), Some(n)) = (&old, &new) else {
        return (old, None, new, None);
    };
    let (so, sn) = (sdk_of(o), sdk_of(n));
    let aside = |v: &String, sdk: Option<String>| sdk.map(|p| (v.clone(), p));
    match (&so, &sn) {
        (Some(_), Some(_)) if o != n => (None, aside(o, so), None, aside(n, sn)),
        (Some(_), None) => (None, aside(o, so), new, None),
        (None, Some(_)) => (old, None, None, aside(n, sn)),
        _ => (old, None, new, None),
    }
}

fn verdict(
    tool: Option<&str>,
    old: Option<String>,
    new: Option<String>,
    needed: Bump,
    changes: &[&Change],
    range: Option<&str>,
) -> Version {
    let problem = match (&old, &new) {
        (Some(o), Some(n)) => semver::under_bump(o, n, needed),
        (None, Some(n)) => semver::parse(n).err(),
        _ => None,
    };
    let breaking = changes
        .iter()
        .any(|c| matches!(c.severity, Severity::Breaking | Severity::LikelyBreaking));
    let client = range.map(|r| match &new {
        Some(v) => match semver::allows(r, v) {
            Ok(true) if breaking && problem.is_some() => (
                false,
                format!("{v} is in {r}, but it was under-bumped over breaking changes"),
            ),
            Ok(true) if breaking && old.is_none() => (
                false,
                format!(
                    "{v} is in {r}, but the changes are breaking and the old version is unknown"
                ),
            ),
            Ok(true) => (true, format!("{v} is in {r}")),
            Ok(false) => (
                false,
                format!("schema version mismatch, expected {r}, got {v}"),
            ),
            Err(e) => (false, e),
        },
        None if breaking => (
            false,
            "no declared version, and the changes are breaking".to_string(),
        ),
        None => (true, "no declared version; no breaking change".to_string()),
    });
    Version {
        tool: tool.map(str::to_string),
        old,
        new,
        needed,
        problem,
        client,
        note: None,
    }
}

impl Drift {
    /// Whether the run fails under `fail_on`, and the count of findings that make it.
    pub fn failures(&self, fail_on: FailOn) -> usize {
        if fail_on == FailOn::Never {
            return 0;
        }
        // Version findings are among the changes (`semver-problem`, `client-range-mismatch`).
        self.changes
            .iter()
            .filter(|c| {
                c.action == Action::Block
                    || (fail_on == FailOn::Warning && c.action == Action::Warn)
            })
            .count()
    }

    pub fn count(&self, action: Action) -> usize {
        self.changes.iter().filter(|c| c.action == action).count()
    }

    pub fn server(&self) -> String {
        self.new
            .server
            .clone()
            .or(self.old.server.clone())
            .unwrap_or_else(|| "server".to_string())
    }
}
