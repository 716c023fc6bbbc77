//! What the gateway decides about a tools/call before it reaches the server (seed 002,
//! "validate before calling"): blocked by drift, disabled for the session, unknown tool,
//! or arguments that do not match the current inputSchema. One retry is allowed; a
//! second mismatch in a row disables the tool for the session.

use std::collections::{BTreeMap, HashMap};

use groundcheck_udfs::changes::name_similarity;
use groundcheck_udfs::validate_args::validate;
use serde_json::Value;

/// Schema mismatches in a row that disable a tool (the first failure plus one retry).
pub const STRIKES: u32 = 2;

/// The gateway's verdict on one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Forward it.
    Pass,
    /// Answer with a tool error (`isError: true`) instead of calling the server.
    Refuse(Refusal),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// What the model reads.
    pub text: String,
    /// Why, for the events log: "schema-mismatch", "blocked-by-drift", "disabled",
    /// "unknown-tool", "no-schema".
    pub reason: &'static str,
    /// The violations, one per line of `validate_args`.
    pub violations: Vec<String>,
    /// This refusal disabled the tool.
    pub disabled_now: bool,
}

/// The session's view of the tools: current schemas, drift blocks, strikes.
#[derive(Debug, Default)]
pub struct Guard {
    /// Current tool definitions by name (from the latest tools/list).
    pub tools: BTreeMap<String, Value>,
    /// The tools/list has been read at least once.
    pub ready: bool,
    /// Tool -> why it is blocked (drift changes whose action is block).
    pub blocked: BTreeMap<String, String>,
    /// Tool -> the mismatch that disabled it.
    pub disabled: BTreeMap<String, String>,
    /// Tool -> seed 002's "schema version mismatch, expected R, got V" (--client-range).
    pub out_of_range: BTreeMap<String, String>,
    strikes: HashMap<String, u32>,
    /// Reject parameters the schema does not name.
    pub strict: bool,
}

impl Guard {
    pub fn new(strict: bool) -> Guard {
        Guard {
            strict,
            ..Guard::default()
        }
    }

    pub fn check(&mut self, tool: &str, arguments: &Value) -> Verdict {
        if let Some(why) = self.disabled.get(tool) {
            return refuse(
                format!(
                    "Tool '{tool}' is disabled for this session after {STRIKES} schema mismatches \
                     in a row (last: {why}). Tool blocked."
                ),
                "disabled",
                Vec::new(),
            );
        }
        if let Some(why) = self.out_of_range.get(tool) {
            return refuse(
                format!("Tool '{tool}': {why}. Tool blocked."),
                "version-mismatch",
                Vec::new(),
            );
        }
        if let Some(why) = self.blocked.get(tool) {
            return refuse(
                format!(
                    "Tool '{tool}' changed since the pinned snapshot: {why}. Tool blocked until \
                     the change is confirmed."
                ),
                "blocked-by-drift",
                Vec::new(),
            );
        }
        if !self.ready {
            return refuse(
                format!(
                    "The gateway could not read the server's tools, so '{tool}' cannot be \
                     checked. Tool blocked."
                ),
                "no-schema",
                Vec::new(),
            );
        }
        let violations = match self.tools.get(tool) {
            None => {
                let near = self
                    .tools
                    .keys()
                    .map(|k| (name_similarity(tool, k), k))
                    .filter(|(s, _)| *s >= 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
                    .map(|(_, k)| format!(" (did you mean '{k}'?)"))
                    .unwrap_or_default();
                vec![format!(
                    "Schema mismatch: tool '{tool}' is not offered by the server{near}"
                )]
            }
            Some(def) => {
                let schema = def
                    .get("inputSchema")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({"type": "object"}));
                let args = if arguments.is_null() {
                    Value::Object(Default::default())
                } else {
                    arguments.clone()
                };
                tidy(validate(
                    &schema.to_string(),
                    &args.to_string(),
                    self.strict,
                ))
            }
        };
        if violations.is_empty() {
            self.strikes.remove(tool);
            return Verdict::Pass;
        }
        let strikes = self.strikes.entry(tool.to_string()).or_default();
        *strikes += 1;
        let summary = summary(&violations);
        let reason = if self.tools.contains_key(tool) {
            "schema-mismatch"
        } else {
            "unknown-tool"
        };
        if *strikes >= STRIKES {
            self.strikes.remove(tool);
            self.disabled.insert(tool.to_string(), summary.clone());
            let mut r = refusal(
                format!(
                    "{summary}. Tool blocked. That was the retry: '{tool}' is now disabled for \
                     this session."
                ),
                reason,
                violations,
            );
            r.disabled_now = true;
            return Verdict::Refuse(r);
        }
        Verdict::Refuse(refusal(
            format!(
                "{summary}. Tool blocked. One retry allowed: call '{tool}' again with arguments \
                 that match its current inputSchema."
            ),
            reason,
            violations,
        ))
    }
}

fn refusal(text: String, reason: &'static str, violations: Vec<String>) -> Refusal {
    Refusal {
        text,
        reason,
        violations,
        disabled_now: false,
    }
}

fn refuse(text: String, reason: &'static str, violations: Vec<String>) -> Verdict {
    Verdict::Refuse(refusal(text, reason, violations))
}

/// Drops "missing required parameter 'p'" when "expected parameter 'p', found 'q'" says
/// the same thing better; one unknown parameter beside one missing required parameter is
/// read as that rename too, however unlike the names are (`msg` for `message`).
fn tidy(violations: Vec<String>) -> Vec<String> {
    let name = |v: &String, prefix: &str| {
        v.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix('\''))
            .map(str::to_string)
    };
    let unknown: Vec<String> = violations
        .iter()
        .filter_map(|v| name(v, "Schema mismatch: unknown parameter '"))
        .collect();
    let missing: Vec<String> = violations
        .iter()
        .filter_map(|v| name(v, "Schema mismatch: missing required parameter '"))
        .collect();
    let violations = match (unknown.as_slice(), missing.as_slice()) {
        ([found], [expected]) => violations
            .into_iter()
            .filter(|v| !v.ends_with(&format!("parameter '{found}'")))
            .map(|v| {
                if v.ends_with(&format!("missing required parameter '{expected}'")) {
                    format!("Schema mismatch: expected parameter '{expected}', found '{found}'")
                } else {
                    v
                }
            })
            .collect(),
        _ => violations,
    };
    let renamed: Vec<String> = violations
        .iter()
        .filter_map(|v| v.strip_prefix("Schema mismatch: expected parameter '"))
        .filter_map(|rest| rest.split_once('\''))
        .map(|(p, _)| format!("Schema mismatch: missing required parameter '{p}'"))
        .collect();
    violations
        .into_iter()
        .filter(|v| !renamed.contains(v))
        .collect()
}

/// One line in the seed's form: "Schema mismatch: a; b".
fn summary(violations: &[String]) -> String {
    let parts: Vec<&str> = violations
        .iter()
        .map(|v| v.strip_prefix("Schema mismatch: ").unwrap_or(v))
        .collect();
    format!("Schema mismatch: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn guard() -> Guard {
        let mut g = Guard::new(true);
        g.ready = true;
        g.tools.insert(
            "search".into(),
            json!({"name": "search", "inputSchema": {"type": "object",
                "properties": {"search_query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["search_query"]}}),
        );
        g
    }

    fn text(v: Verdict) -> String {
        match v {
            Verdict::Refuse(r) => r.text,
            Verdict::Pass => "pass".into(),
        }
    }

    #[test]
    fn the_seed_message_then_one_retry_then_disabled() {
        let mut g = guard();
        assert_eq!(
            text(g.check("search", &json!({"query": "x"}))),
            "Schema mismatch: expected parameter 'search_query', found 'query'. Tool blocked. \
             One retry allowed: call 'search' again with arguments that match its current \
             inputSchema."
        );
        let second = g.check("search", &json!({"query": "x"}));
        let Verdict::Refuse(r) = second else {
            panic!("second mismatch passed")
        };
        assert!(r.disabled_now);
        assert!(
            r.text
                .ends_with("'search' is now disabled for this session.")
        );
        // Disabled: even a good call is refused now.
        let third = text(g.check("search", &json!({"search_query": "x"})));
        assert!(third.starts_with("Tool 'search' is disabled"), "{third}");
    }

    #[test]
    fn one_unknown_beside_one_missing_is_a_rename() {
        let mut g = guard();
        assert!(text(g.check("search", &json!({"q": "x"}))).starts_with(
            "Schema mismatch: expected parameter 'search_query', found 'q'. Tool blocked."
        ));
    }

    #[test]
    fn a_good_call_resets_the_strikes() {
        let mut g = guard();
        assert_ne!(g.check("search", &json!({"q": 1})), Verdict::Pass);
        assert_eq!(
            g.check("search", &json!({"search_query": "x"})),
            Verdict::Pass
        );
        let again = g.check("search", &json!({"search_query": "x", "limit": "ten"}));
        let Verdict::Refuse(r) = again else {
            panic!("bad limit passed")
        };
        assert!(!r.disabled_now);
        assert!(
            r.text.starts_with("Schema mismatch: parameter 'limit'"),
            "{}",
            r.text
        );
    }

    #[test]
    fn unknown_tools_and_drift_blocks() {
        let mut g = guard();
        assert_eq!(
            text(g.check("serch", &json!({}))),
            "Schema mismatch: tool 'serch' is not offered by the server (did you mean 'search'?). \
             Tool blocked. One retry allowed: call 'serch' again with arguments that match its \
             current inputSchema."
        );
        g.blocked
            .insert("search".into(), "parameter 'q' likely renamed".into());
        assert_eq!(
            text(g.check("search", &json!({"search_query": "x"}))),
            "Tool 'search' changed since the pinned snapshot: parameter 'q' likely renamed. Tool \
             blocked until the change is confirmed."
        );
    }

    #[test]
    fn nothing_is_forwarded_before_the_tools_are_known() {
        let mut g = Guard::new(true);
        let Verdict::Refuse(r) = g.check("search", &json!({})) else {
            panic!("passed without schemas")
        };
        assert_eq!(r.reason, "no-schema");
    }
}
