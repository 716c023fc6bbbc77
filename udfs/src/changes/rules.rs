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

use super::ids::*;

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
/// inputSchema rules that have no output twin: (id, severity, action, text).
const INPUT: &[(&str, Severity, Action, &str)] = &[(
    "input-property-removed-optional-ignored",
    Breaking,
    Action::Block,
    "inputSchema: An optional property was removed and the schema does not close additionalProperties: most servers then ignore the old argument, so an old call still succeeds and silently means something else (seed 002's opening failure). With additionalProperties false the old call is rejected: input-property-removed-optional, a warning.",
)];

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
        "semver-problem",
        Breaking,
        Action::Block,
        "A declared version (the server's or a tool's) is under-bumped for the changes, goes backwards, or is not a version. Judged by `groundcheck drift`; override or ignore it like any rule.",
    ),
    (
        "tool-name-collision",
        LikelyBreaking,
        Action::Block,
        "A tool has the name of a tool of another server in the project: a client that merges the lists may call the wrong one, and a server can take over another's tool this way (shadowing). Judged by `groundcheck drift --project`.",
    ),
    (
        "text-names-other-server-tool",
        Review,
        Action::Warn,
        "Model-visible text gained the name of another server's tool: wording that talks about other servers' tools can steer how the model uses them (shadowing). Judged by `groundcheck drift --project`.",
    ),
    (
        "client-range-mismatch",
        Breaking,
        Action::Block,
        "A client pinned to --client-range may not call the new version (outside the range, or inside it over breaking changes the version does not own up to).",
    ),
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
        "Model-visible text (a description, title, parameter name, enum value, default or example) gained an instruction aimed at the model together with a sensitive target (credentials, the conversation, other tools' data, an outside address, hidden characters): possible injection.",
    ),
    (
        "text-instruction",
        Review,
        Action::Warn,
        "Model-visible text gained one weak sign of an instruction to the model (a note to the assistant, something kept from the user, a rule over another tool, a shell command, a credential's place, invisible characters), or no rule's sign but wording the text model scores like known poisoning: for review.",
    ),
    (
        "text-language",
        Review,
        Action::Warn,
        "Model-visible text gained a sentence in a language or script the server's other text does not use: wording the text review's vocabulary may not read, and a known way to slip an instruction past review. For review, whatever the sentence says.",
    ),
    (
        "text-language-suspicious",
        Review,
        Action::Block,
        "Model-visible text gained a sentence in a language or script the server's other text does not use, and it carries what an instruction would send or take, read the same in any language: an outside address (URL, e-mail, phone or account number), a place that holds credentials, hidden characters, or another tool's name: possible injection past the review's vocabulary.",
    ),
];

/// Schema rules, once per direction: (suffix, input severity, output severity, text).
const SCHEMA: &[(SchemaRule, Severity, Severity, &str)] = &[
    (
        PROPERTY_ADDED_REQUIRED,
        Breaking,
        Compatible,
        "A required property was added.",
    ),
    (
        PROPERTY_ADDED_OPTIONAL,
        Compatible,
        Compatible,
        "An optional property was added.",
    ),
    (
        PROPERTY_REMOVED_REQUIRED,
        Breaking,
        Breaking,
        "A required property was removed.",
    ),
    (
        PROPERTY_REMOVED_OPTIONAL,
        Warning,
        Warning,
        "An optional property was removed (inputs: where the schema rejects unknown properties, so an old call fails loudly).",
    ),
    (
        PROPERTY_LIKELY_RENAMED,
        LikelyBreaking,
        LikelyBreaking,
        "A property was removed and a similar one added (name or description, same type): likely a rename.",
    ),
    (
        PROPERTY_BECAME_REQUIRED,
        Breaking,
        Compatible,
        "An optional property became required.",
    ),
    (
        PROPERTY_BECAME_OPTIONAL,
        Compatible,
        Breaking,
        "A required property became optional.",
    ),
    (
        PROPERTY_DEPRECATED,
        Warning,
        Warning,
        "A property was marked deprecated.",
    ),
    (
        TYPE_CHANGED,
        Breaking,
        Breaking,
        "The type changed (e.g. string to number).",
    ),
    (
        TYPE_WIDENED,
        Compatible,
        Breaking,
        "The type accepts more (e.g. integer to number, a type added).",
    ),
    (
        TYPE_NARROWED,
        Breaking,
        Compatible,
        "The type accepts less (e.g. number to integer, a type removed).",
    ),
    (NULLABLE_ADDED, Compatible, Breaking, "null became allowed."),
    (
        NULLABLE_REMOVED,
        Breaking,
        Compatible,
        "null is no longer allowed.",
    ),
    (
        ENUM_VALUE_ADDED,
        Compatible,
        Breaking,
        "An enum value was added.",
    ),
    (
        ENUM_VALUE_REMOVED,
        Breaking,
        Compatible,
        "An enum value was removed.",
    ),
    (
        ENUM_INTRODUCED,
        Breaking,
        Compatible,
        "An enum now restricts the values.",
    ),
    (
        ENUM_DROPPED,
        Compatible,
        Breaking,
        "The enum was dropped: any value of the type is allowed.",
    ),
    (
        CONST_SET,
        Breaking,
        Compatible,
        "A const now fixes the value.",
    ),
    (
        CONST_CHANGED,
        Breaking,
        Breaking,
        "The const value changed.",
    ),
    (
        CONST_REMOVED,
        Compatible,
        Breaking,
        "The const was removed.",
    ),
    (
        MULTIPLE_OF_CHANGED,
        Breaking,
        Breaking,
        "multipleOf changed to a value neither a multiple nor a divisor of the old one.",
    ),
    (
        UNIQUE_ITEMS_SET,
        Breaking,
        Compatible,
        "Array items must now be unique.",
    ),
    (
        UNIQUE_ITEMS_REMOVED,
        Compatible,
        Warning,
        "Array items no longer need to be unique.",
    ),
    (
        PATTERN_ADDED,
        Breaking,
        Compatible,
        "A pattern now restricts the string.",
    ),
    (
        PATTERN_CHANGED,
        LikelyBreaking,
        Warning,
        "The pattern changed (which values it accepts cannot be compared).",
    ),
    (
        PATTERN_REMOVED,
        Compatible,
        Warning,
        "The pattern was removed.",
    ),
    (
        FORMAT_ADDED,
        Breaking,
        Compatible,
        "A format now restricts the string.",
    ),
    (FORMAT_CHANGED, Breaking, Breaking, "The format changed."),
    (
        FORMAT_REMOVED,
        Compatible,
        Warning,
        "The format was removed.",
    ),
    (
        DEFAULT_CHANGED,
        Warning,
        Review,
        "The default value was added, changed or removed: callers who omit the property get different behaviour.",
    ),
    (
        ADDITIONAL_PROPERTIES_CLOSED,
        Breaking,
        Compatible,
        "Properties the schema does not name are no longer allowed.",
    ),
    (
        ADDITIONAL_PROPERTIES_DECLARED_CLOSED,
        Warning,
        Compatible,
        "The schema now says additionalProperties: false where it said nothing: MCP clients send the parameters a schema names, so this states the contract rather than narrowing it (schema generators switch it on and off).",
    ),
    (
        ADDITIONAL_PROPERTIES_OPENED,
        Compatible,
        Warning,
        "Properties the schema does not name are now allowed.",
    ),
    (
        ANY_OF_BRANCH_ADDED,
        Compatible,
        Breaking,
        "An anyOf branch was added (accepts more).",
    ),
    (
        ANY_OF_BRANCH_REMOVED,
        Breaking,
        Compatible,
        "An anyOf branch was removed (accepts less).",
    ),
    (
        ONE_OF_BRANCH_ADDED,
        Compatible,
        Breaking,
        "A oneOf branch was added (accepts more).",
    ),
    (
        ONE_OF_BRANCH_REMOVED,
        Breaking,
        Compatible,
        "A oneOf branch was removed (accepts less).",
    ),
    (
        ALL_OF_BRANCH_ADDED,
        Breaking,
        Compatible,
        "An allOf branch was added (accepts less).",
    ),
    (
        ALL_OF_BRANCH_REMOVED,
        Compatible,
        Breaking,
        "An allOf branch was removed (accepts more).",
    ),
    (
        REF_CHANGED,
        Review,
        Review,
        "A $ref that is not resolved locally (remote, or recursive) changed.",
    ),
    (
        KEYWORD_CHANGED,
        Review,
        Review,
        "A keyword the rules do not judge (not, if/then/else, patternProperties, …) changed.",
    ),
    (
        UNKNOWN_KEYWORD_CHANGED,
        Review,
        Review,
        "A keyword unknown to JSON Schema changed.",
    ),
];

/// Bounds: (keyword, its rules in BOUND_KINDS order, a larger value is tighter).
pub const BOUNDS: &[(&str, [SchemaRule; 4], bool)] = &[
    (
        "minimum",
        [
            MINIMUM_TIGHTENED,
            MINIMUM_LOOSENED,
            MINIMUM_SET,
            MINIMUM_REMOVED,
        ],
        true,
    ),
    (
        "exclusiveMinimum",
        [
            EXCLUSIVE_MINIMUM_TIGHTENED,
            EXCLUSIVE_MINIMUM_LOOSENED,
            EXCLUSIVE_MINIMUM_SET,
            EXCLUSIVE_MINIMUM_REMOVED,
        ],
        true,
    ),
    (
        "maximum",
        [
            MAXIMUM_TIGHTENED,
            MAXIMUM_LOOSENED,
            MAXIMUM_SET,
            MAXIMUM_REMOVED,
        ],
        false,
    ),
    (
        "exclusiveMaximum",
        [
            EXCLUSIVE_MAXIMUM_TIGHTENED,
            EXCLUSIVE_MAXIMUM_LOOSENED,
            EXCLUSIVE_MAXIMUM_SET,
            EXCLUSIVE_MAXIMUM_REMOVED,
        ],
        false,
    ),
    (
        "minLength",
        [
            MIN_LENGTH_TIGHTENED,
            MIN_LENGTH_LOOSENED,
            MIN_LENGTH_SET,
            MIN_LENGTH_REMOVED,
        ],
        true,
    ),
    (
        "maxLength",
        [
            MAX_LENGTH_TIGHTENED,
            MAX_LENGTH_LOOSENED,
            MAX_LENGTH_SET,
            MAX_LENGTH_REMOVED,
        ],
        false,
    ),
    (
        "minItems",
        [
            MIN_ITEMS_TIGHTENED,
            MIN_ITEMS_LOOSENED,
            MIN_ITEMS_SET,
            MIN_ITEMS_REMOVED,
        ],
        true,
    ),
    (
        "maxItems",
        [
            MAX_ITEMS_TIGHTENED,
            MAX_ITEMS_LOOSENED,
            MAX_ITEMS_SET,
            MAX_ITEMS_REMOVED,
        ],
        false,
    ),
    (
        "minProperties",
        [
            MIN_PROPERTIES_TIGHTENED,
            MIN_PROPERTIES_LOOSENED,
            MIN_PROPERTIES_SET,
            MIN_PROPERTIES_REMOVED,
        ],
        true,
    ),
    (
        "maxProperties",
        [
            MAX_PROPERTIES_TIGHTENED,
            MAX_PROPERTIES_LOOSENED,
            MAX_PROPERTIES_SET,
            MAX_PROPERTIES_REMOVED,
        ],
        false,
    ),
    (
        "minContains",
        [
            MIN_CONTAINS_TIGHTENED,
            MIN_CONTAINS_LOOSENED,
            MIN_CONTAINS_SET,
            MIN_CONTAINS_REMOVED,
        ],
        true,
    ),
    (
        "maxContains",
        [
            MAX_CONTAINS_TIGHTENED,
            MAX_CONTAINS_LOOSENED,
            MAX_CONTAINS_SET,
            MAX_CONTAINS_REMOVED,
        ],
        false,
    ),
    (
        "multipleOf",
        [
            MULTIPLE_OF_TIGHTENED,
            MULTIPLE_OF_LOOSENED,
            MULTIPLE_OF_SET,
            MULTIPLE_OF_REMOVED,
        ],
        true,
    ),
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
    fixed(Direction::Input, INPUT);
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
        for (id, i, o, text) in SCHEMA {
            let severity = pick(*i, *o);
            rules.push(Rule {
                id: id.on(dir).to_string(),
                direction: dir,
                severity,
                action: severity.default_action(),
                text: format!("{side}: {text}"),
            });
        }
        for (keyword, ids, _) in BOUNDS {
            for (id, (_, i, o, what)) in ids.iter().zip(BOUND_KINDS) {
                let severity = pick(*i, *o);
                rules.push(Rule {
                    id: id.on(dir).to_string(),
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

    /// Each schema rule's two ids are one rule's: `input-X` and `output-X`, X its name.
    #[test]
    fn schema_rule_ids_are_spelled_alike_on_both_sides() {
        let all = SCHEMA
            .iter()
            .map(|r| r.0)
            .chain(BOUNDS.iter().flat_map(|b| b.1));
        for r in all {
            let x = r.input.strip_prefix("input-").expect(r.input);
            assert_eq!(r.output, format!("output-{x}"));
        }
        // Bound ids follow BOUND_KINDS' order.
        for (_, ids, _) in BOUNDS {
            for (id, (kind, ..)) in ids.iter().zip(BOUND_KINDS) {
                assert!(id.input.ends_with(&format!("-{kind}")), "{}", id.input);
            }
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
