//! The drift rules as data: one row per rule with its id, direction, severity, default
//! action and text. The diff engine only emits ids found here (a test checks it), and each
//! rule has its own test case in `udfs/tests/drift_rules.rs`.
//!
//! Direction decides severity. Inputs are contravariant: narrowing what a tool accepts
//! breaks callers, widening it is compatible. Outputs are covariant: widening what a tool
//! may return breaks consumers, narrowing it is compatible. A loosened output bound
//! (length, range, count) is a warning rather than breaking: consumers rarely depend on
//! it. Schema rules exist once per direction (`input-…`, `output-…`); tool, text and
//! annotation rules once.

use std::collections::HashMap;
use std::fmt;
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Breaking,
    LikelyBreaking,
    Warning,
    Review,
    Compatible,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Severity::Breaking,
        Severity::LikelyBreaking,
        Severity::Warning,
        Severity::Review,
        Severity::Compatible,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Breaking => "breaking",
            Severity::LikelyBreaking => "likely-breaking",
            Severity::Warning => "warning",
            Severity::Review => "review",
            Severity::Compatible => "compatible",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The seed's table: breaking and likely-breaking block, warnings and reviews warn,
    /// compatible changes are allowed.
    pub fn default_action(self) -> Action {
        match self {
            Severity::Breaking | Severity::LikelyBreaking => Action::Block,
            Severity::Warning | Severity::Review => Action::Warn,
            Severity::Compatible => Action::Allow,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    Block,
    Warn,
    Allow,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Block => "block",
            Action::Warn => "warn",
            Action::Allow => "allow",
        }
    }

    pub fn parse(s: &str) -> Option<Action> {
        [Action::Block, Action::Warn, Action::Allow]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// The tool as a whole: added, removed, renamed, its outputSchema as a whole.
    Tool,
    /// inputSchema: what callers send.
    Input,
    /// outputSchema: what consumers receive.
    Output,
    /// annotations (behaviour hints).
    Annotation,
    /// Model-visible text: titles and descriptions.
    Text,
    /// The rest of the server: prompts, resources, resource templates, instructions,
    /// capabilities.
    Server,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Tool => "tool",
            Direction::Input => "input",
            Direction::Output => "output",
            Direction::Annotation => "annotation",
            Direction::Text => "text",
            Direction::Server => "server",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    pub direction: Direction,
    pub severity: Severity,
    pub action: Action,
    pub text: String,
}

use Severity::*;

/// Tool-level rules: (id, severity, action, text).
const TOOL: &[(&str, Severity, Action, &str)] = &[
    ("tool-added", Compatible, Action::Allow, "A tool was added."),
    (
        "tool-removed",
        Breaking,
        Action::Block,
        "A tool was removed: calls to it fail.",
    ),
    (
        "tool-likely-renamed",
        LikelyBreaking,
        Action::Block,
        "A tool was removed and a similar one added (name or schema): likely a rename; block until confirmed.",
    ),
    (
        "tool-input-schema-emptied",
        LikelyBreaking,
        Action::Block,
        "The inputSchema lost its type and every parameter: the model no longer learns what to send (often a schema generator failure after a dependency change, with no version bump).",
    ),
    (
        "tool-input-schema-filled",
        Review,
        Action::Warn,
        "An inputSchema that declared nothing now declares parameters: callers built against the empty schema never learnt them.",
    ),
    (
        "tool-output-schema-added",
        Compatible,
        Action::Allow,
        "The tool now declares an outputSchema.",
    ),
    (
        "tool-output-schema-removed",
        Breaking,
        Action::Block,
        "The tool no longer declares an outputSchema: consumers lose the result contract.",
    ),
    (
        "tool-schema-unreadable",
        Review,
        Action::Block,
        "A schema cannot be judged (a $ref that does not resolve, nesting too deep, too large): review it by hand.",
    ),
];

/// Annotation rules. MCP defaults: readOnlyHint false, destructiveHint true,
/// idempotentHint false, openWorldHint true.
const ANNOTATION: &[(&str, Severity, Action, &str)] = &[
    (
        "annotation-read-only-removed",
        LikelyBreaking,
        Action::Block,
        "readOnlyHint went from true to false: the tool may now modify its environment.",
    ),
    (
        "annotation-destructive-added",
        LikelyBreaking,
        Action::Block,
        "destructiveHint became true: the tool may now perform destructive updates.",
    ),
    (
        "annotation-idempotent-removed",
        Warning,
        Action::Warn,
        "idempotentHint went from true to false: repeating a call may now have more effect.",
    ),
    (
        "annotation-open-world-added",
        Warning,
        Action::Warn,
        "openWorldHint became true: the tool may now reach outside entities.",
    ),
    (
        "annotation-made-safer",
        Compatible,
        Action::Allow,
        "A behaviour hint moved the safe way (read-only, not destructive, idempotent, closed world).",
    ),
    (
        "annotation-changed",
        Review,
        Action::Warn,
        "Another annotation changed (title or a key the rules do not judge).",
    ),
];

/// The rest of a server's surface (surface.rs). Prompts are called like tools with
/// string arguments: the same variance as an inputSchema.
const SERVER: &[(&str, Severity, Action, &str)] = &[
    (
        "prompt-added",
        Compatible,
        Action::Allow,
        "A prompt was added.",
    ),
    (
        "prompt-removed",
        Breaking,
        Action::Block,
        "A prompt was removed: clients that get it fail.",
    ),
    (
        "prompt-likely-renamed",
        LikelyBreaking,
        Action::Block,
        "A prompt was removed and one with a similar name added: likely a rename (block until confirmed).",
    ),
    (
        "prompt-argument-added-required",
        Breaking,
        Action::Block,
        "A required prompt argument was added: clients that do not send it fail.",
    ),
    (
        "prompt-argument-added-optional",
        Compatible,
        Action::Allow,
        "An optional prompt argument was added.",
    ),
    (
        "prompt-argument-removed",
        Warning,
        Action::Warn,
        "A prompt argument was removed: what clients send for it is ignored or refused.",
    ),
    (
        "prompt-argument-became-required",
        Breaking,
        Action::Block,
        "A prompt argument became required.",
    ),
    (
        "prompt-argument-became-optional",
        Compatible,
        Action::Allow,
        "A prompt argument became optional.",
    ),
    (
        "resource-template-added",
        Compatible,
        Action::Allow,
        "A resource template was added.",
    ),
    (
        "resource-template-removed",
        Breaking,
        Action::Block,
        "A resource template was removed: URIs built from it no longer resolve.",
    ),
    (
        "resource-template-uri-changed",
        Breaking,
        Action::Block,
        "A resource template's URI template changed: URIs built from the old one no longer resolve.",
    ),
    (
        "resource-added",
        Compatible,
        Action::Allow,
        "A resource is now listed.",
    ),
    (
        "resource-removed",
        Warning,
        Action::Warn,
        "A resource is no longer listed (lists of resources are often data, not contract).",
    ),
    (
        "resource-mime-type-changed",
        Warning,
        Action::Warn,
        "A resource's or template's mimeType changed: readers may not parse it.",
    ),
    (
        "server-instructions-changed",
        Review,
        Action::Warn,
        "The server's instructions changed: model-visible, like a description.",
    ),
    (
        "capability-removed",
        Breaking,
        Action::Block,
        "The server no longer offers a capability (tools, prompts, resources, logging, completions, ...).",
    ),
    (
        "capability-added",
        Compatible,
        Action::Allow,
        "The server offers a new capability.",
    ),
    (
        "capability-changed",
        Review,
        Action::Warn,
        "A capability's options changed (listChanged, subscribe, ...).",
    ),
];

/// Text rules: model-visible wording.
const TEXT: &[(&str, Severity, Action, &str)] = &[
    (
        "text-title-changed",
        Review,
        Action::Warn,
        "A title changed: model-visible, can change which tool the model picks.",
    ),
    (
        "text-description-changed",
        Review,
        Action::Warn,
        "A description changed: model-visible, can change how the model calls the tool (seed 002's semantic shift).",
    ),
    (
        "text-suspicious",
        Review,
        Action::Block,
        "Model-visible text gained something that reads like an instruction to the model (imperative, URL, mention of another tool, hidden Unicode): possible injection.",
    ),
];

/// Schema rules, once per direction: (suffix, input severity, output severity, text).
const SCHEMA: &[(&str, Severity, Severity, &str)] = &[
    (
        "property-added-required",
        Breaking,
        Compatible,
        "A required property was added.",
    ),
    (
        "property-added-optional",
        Compatible,
        Compatible,
        "An optional property was added.",
    ),
    (
        "property-removed-required",
        Breaking,
        Breaking,
        "A required property was removed.",
    ),
    (
        "property-removed-optional",
        Warning,
        Warning,
        "An optional property was removed.",
    ),
    (
        "property-likely-renamed",
        LikelyBreaking,
        LikelyBreaking,
        "A property was removed and a similar one added (name or description, same type): likely a rename.",
    ),
    (
        "property-became-required",
        Breaking,
        Compatible,
        "An optional property became required.",
    ),
    (
        "property-became-optional",
        Compatible,
        Breaking,
        "A required property became optional.",
    ),
    (
        "property-deprecated",
        Warning,
        Warning,
        "A property was marked deprecated.",
    ),
    (
        "type-changed",
        Breaking,
        Breaking,
        "The type changed (e.g. string to number).",
    ),
    (
        "type-widened",
        Compatible,
        Breaking,
        "The type accepts more (e.g. integer to number, a type added).",
    ),
    (
        "type-narrowed",
        Breaking,
        Compatible,
        "The type accepts less (e.g. number to integer, a type removed).",
    ),
    (
        "nullable-added",
        Compatible,
        Breaking,
        "null became allowed.",
    ),
    (
        "nullable-removed",
        Breaking,
        Compatible,
        "null is no longer allowed.",
    ),
    (
        "enum-value-added",
        Compatible,
        Breaking,
        "An enum value was added.",
    ),
    (
        "enum-value-removed",
        Breaking,
        Compatible,
        "An enum value was removed.",
    ),
    (
        "enum-introduced",
        Breaking,
        Compatible,
        "An enum now restricts the values.",
    ),
    (
        "enum-dropped",
        Compatible,
        Breaking,
        "The enum was dropped: any value of the type is allowed.",
    ),
    (
        "const-set",
        Breaking,
        Compatible,
        "A const now fixes the value.",
    ),
    (
        "const-changed",
        Breaking,
        Breaking,
        "The const value changed.",
    ),
    (
        "const-removed",
        Compatible,
        Breaking,
        "The const was removed.",
    ),
    (
        "multiple-of-changed",
        Breaking,
        Breaking,
        "multipleOf changed to a value neither a multiple nor a divisor of the old one.",
    ),
    (
        "unique-items-set",
        Breaking,
        Compatible,
        "Array items must now be unique.",
    ),
    (
        "unique-items-removed",
        Compatible,
        Warning,
        "Array items no longer need to be unique.",
    ),
    (
        "pattern-added",
        Breaking,
        Compatible,
        "A pattern now restricts the string.",
    ),
    (
        "pattern-changed",
        LikelyBreaking,
        Warning,
        "The pattern changed (which values it accepts cannot be compared).",
    ),
    (
        "pattern-removed",
        Compatible,
        Warning,
        "The pattern was removed.",
    ),
    (
        "format-added",
        Breaking,
        Compatible,
        "A format now restricts the string.",
    ),
    ("format-changed", Breaking, Breaking, "The format changed."),
    (
        "format-removed",
        Compatible,
        Warning,
        "The format was removed.",
    ),
    (
        "default-changed",
        Warning,
        Review,
        "The default value was added, changed or removed: callers who omit the property get different behaviour.",
    ),
    (
        "additional-properties-closed",
        Breaking,
        Compatible,
        "Properties the schema does not name are no longer allowed.",
    ),
    (
        "additional-properties-declared-closed",
        Warning,
        Compatible,
        "The schema now says additionalProperties: false where it said nothing: MCP clients send the parameters a schema names, so this states the contract rather than narrowing it (schema generators switch it on and off).",
    ),
    (
        "additional-properties-opened",
        Compatible,
        Warning,
        "Properties the schema does not name are now allowed.",
    ),
    (
        "any-of-branch-added",
        Compatible,
        Breaking,
        "An anyOf branch was added (accepts more).",
    ),
    (
        "any-of-branch-removed",
        Breaking,
        Compatible,
        "An anyOf branch was removed (accepts less).",
    ),
    (
        "one-of-branch-added",
        Compatible,
        Breaking,
        "A oneOf branch was added (accepts more).",
    ),
    (
        "one-of-branch-removed",
        Breaking,
        Compatible,
        "A oneOf branch was removed (accepts less).",
    ),
    (
        "all-of-branch-added",
        Breaking,
        Compatible,
        "An allOf branch was added (accepts less).",
    ),
    (
        "all-of-branch-removed",
        Compatible,
        Breaking,
        "An allOf branch was removed (accepts more).",
    ),
    (
        "ref-changed",
        Review,
        Review,
        "A $ref that is not resolved locally (remote, or recursive) changed.",
    ),
    (
        "keyword-changed",
        Review,
        Review,
        "A keyword the rules do not judge (not, if/then/else, patternProperties, …) changed.",
    ),
    (
        "unknown-keyword-changed",
        Review,
        Review,
        "A keyword unknown to JSON Schema changed.",
    ),
];

/// Bounds: (keyword, suffix, a larger value is tighter).
pub const BOUNDS: &[(&str, &str, bool)] = &[
    ("minimum", "minimum", true),
    ("exclusiveMinimum", "exclusive-minimum", true),
    ("maximum", "maximum", false),
    ("exclusiveMaximum", "exclusive-maximum", false),
    ("minLength", "min-length", true),
    ("maxLength", "max-length", false),
    ("minItems", "min-items", true),
    ("maxItems", "max-items", false),
    ("minProperties", "min-properties", true),
    ("maxProperties", "max-properties", false),
    ("minContains", "min-contains", true),
    ("maxContains", "max-contains", false),
    ("multipleOf", "multiple-of", true),
];

/// (kind, input severity, output severity, text) for each bound.
const BOUND_KINDS: &[(&str, Severity, Severity, &str)] = &[
    ("tightened", Breaking, Compatible, "tightened"),
    ("loosened", Compatible, Warning, "loosened"),
    ("set", Breaking, Compatible, "set where there was none"),
    ("removed", Compatible, Warning, "removed"),
];

fn build() -> Vec<Rule> {
    let mut rules = Vec::new();
    let mut fixed = |dir: Direction, list: &[(&str, Severity, Action, &str)]| {
        for (id, severity, action, text) in list {
            rules.push(Rule {
                id: id.to_string(),
                direction: dir,
                severity: *severity,
                action: *action,
                text: text.to_string(),
            });
        }
    };
    fixed(Direction::Tool, TOOL);
    fixed(Direction::Annotation, ANNOTATION);
    fixed(Direction::Text, TEXT);
    fixed(Direction::Server, SERVER);
    for dir in [Direction::Input, Direction::Output] {
        let pick = |i: Severity, o: Severity| if dir == Direction::Input { i } else { o };
        let side = if dir == Direction::Input {
            "inputSchema"
        } else {
            "outputSchema"
        };
        for (suffix, i, o, text) in SCHEMA {
            let severity = pick(*i, *o);
            rules.push(Rule {
                id: format!("{}-{suffix}", dir.as_str()),
                direction: dir,
                severity,
                action: severity.default_action(),
                text: format!("{side}: {text}"),
            });
        }
        for (keyword, suffix, _) in BOUNDS {
            for (kind, i, o, what) in BOUND_KINDS {
                let severity = pick(*i, *o);
                rules.push(Rule {
                    id: format!("{}-{suffix}-{kind}", dir.as_str()),
                    direction: dir,
                    severity,
                    action: severity.default_action(),
                    text: format!("{side}: {keyword} {what}."),
                });
            }
        }
    }
    rules
}

/// Every rule, in a fixed order.
pub static RULES: LazyLock<Vec<Rule>> = LazyLock::new(build);

static BY_ID: LazyLock<HashMap<&'static str, &'static Rule>> =
    LazyLock::new(|| RULES.iter().map(|r| (r.id.as_str(), r)).collect());

/// The rule with this id. Panics on an unknown id: the engine only names rules in
/// the table, and a test runs every rule.
pub fn rule(id: &str) -> &'static Rule {
    BY_ID
        .get(id)
        .copied()
        .unwrap_or_else(|| panic!("drift rule '{id}' is not in the rules table"))
}

pub fn find(id: &str) -> Option<&'static Rule> {
    BY_ID.get(id).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_plain() {
        assert_eq!(BY_ID.len(), RULES.len());
        for r in RULES.iter() {
            assert!(
                r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                r.id
            );
        }
    }

    #[test]
    fn directions_follow_variance() {
        assert_eq!(rule("input-type-narrowed").severity, Breaking);
        assert_eq!(rule("output-type-narrowed").severity, Compatible);
        assert_eq!(rule("output-type-widened").severity, Breaking);
        assert_eq!(rule("input-max-length-tightened").severity, Breaking);
        assert_eq!(rule("output-max-length-loosened").severity, Warning);
        assert_eq!(rule("input-property-likely-renamed").action, Action::Block);
    }
}
