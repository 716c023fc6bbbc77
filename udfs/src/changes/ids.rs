//! Every schema rule's id on each side, spelled out whole: an id seen in a CI log
//! (`input-type-narrowed`) greps to its line here, and the constant's name to the line of
//! `schema.rs` that emits it. `rules.rs` gives each its severity and text.

/// A schema rule, which has an id per side (inputSchema and outputSchema).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaRule {
    pub input: &'static str,
    pub output: &'static str,
}

impl SchemaRule {
    /// The id on `dir`'s side (input for inputSchema, output for outputSchema).
    pub fn on(self, dir: super::Direction) -> &'static str {
        if dir == super::Direction::Input {
            self.input
        } else {
            self.output
        }
    }
}

pub const PROPERTY_ADDED_REQUIRED: SchemaRule = SchemaRule {
    input: "input-property-added-required",
    output: "output-property-added-required",
};
pub const PROPERTY_ADDED_OPTIONAL: SchemaRule = SchemaRule {
    input: "input-property-added-optional",
    output: "output-property-added-optional",
};
pub const PROPERTY_REMOVED_REQUIRED: SchemaRule = SchemaRule {
    input: "input-property-removed-required",
    output: "output-property-removed-required",
};
pub const PROPERTY_REMOVED_OPTIONAL: SchemaRule = SchemaRule {
    input: "input-property-removed-optional",
    output: "output-property-removed-optional",
};
pub const PROPERTY_LIKELY_RENAMED: SchemaRule = SchemaRule {
    input: "input-property-likely-renamed",
    output: "output-property-likely-renamed",
};
pub const PROPERTY_BECAME_REQUIRED: SchemaRule = SchemaRule {
    input: "input-property-became-required",
    output: "output-property-became-required",
};
pub const PROPERTY_BECAME_OPTIONAL: SchemaRule = SchemaRule {
    input: "input-property-became-optional",
    output: "output-property-became-optional",
};
pub const PROPERTY_DEPRECATED: SchemaRule = SchemaRule {
    input: "input-property-deprecated",
    output: "output-property-deprecated",
};
pub const TYPE_CHANGED: SchemaRule = SchemaRule {
    input: "input-type-changed",
    output: "output-type-changed",
};
pub const TYPE_WIDENED: SchemaRule = SchemaRule {
    input: "input-type-widened",
    output: "output-type-widened",
};
pub const TYPE_NARROWED: SchemaRule = SchemaRule {
    input: "input-type-narrowed",
    output: "output-type-narrowed",
};
pub const NULLABLE_ADDED: SchemaRule = SchemaRule {
    input: "input-nullable-added",
    output: "output-nullable-added",
};
pub const NULLABLE_REMOVED: SchemaRule = SchemaRule {
    input: "input-nullable-removed",
    output: "output-nullable-removed",
};
pub const ENUM_VALUE_ADDED: SchemaRule = SchemaRule {
    input: "input-enum-value-added",
    output: "output-enum-value-added",
};
pub const ENUM_VALUE_REMOVED: SchemaRule = SchemaRule {
    input: "input-enum-value-removed",
    output: "output-enum-value-removed",
};
pub const ENUM_INTRODUCED: SchemaRule = SchemaRule {
    input: "input-enum-introduced",
    output: "output-enum-introduced",
};
pub const ENUM_DROPPED: SchemaRule = SchemaRule {
    input: "input-enum-dropped",
    output: "output-enum-dropped",
};
pub const CONST_SET: SchemaRule = SchemaRule {
    input: "input-const-set",
    output: "output-const-set",
};
pub const CONST_CHANGED: SchemaRule = SchemaRule {
    input: "input-const-changed",
    output: "output-const-changed",
};
pub const CONST_REMOVED: SchemaRule = SchemaRule {
    input: "input-const-removed",
    output: "output-const-removed",
};
pub const MULTIPLE_OF_CHANGED: SchemaRule = SchemaRule {
    input: "input-multiple-of-changed",
    output: "output-multiple-of-changed",
};
pub const UNIQUE_ITEMS_SET: SchemaRule = SchemaRule {
    input: "input-unique-items-set",
    output: "output-unique-items-set",
};
pub const UNIQUE_ITEMS_REMOVED: SchemaRule = SchemaRule {
    input: "input-unique-items-removed",
    output: "output-unique-items-removed",
};
pub const PATTERN_ADDED: SchemaRule = SchemaRule {
    input: "input-pattern-added",
    output: "output-pattern-added",
};
pub const PATTERN_CHANGED: SchemaRule = SchemaRule {
    input: "input-pattern-changed",
    output: "output-pattern-changed",
};
pub const PATTERN_REMOVED: SchemaRule = SchemaRule {
    input: "input-pattern-removed",
    output: "output-pattern-removed",
};
pub const FORMAT_ADDED: SchemaRule = SchemaRule {
    input: "input-format-added",
    output: "output-format-added",
};
pub const FORMAT_CHANGED: SchemaRule = SchemaRule {
    input: "input-format-changed",
    output: "output-format-changed",
};
pub const FORMAT_REMOVED: SchemaRule = SchemaRule {
    input: "input-format-removed",
    output: "output-format-removed",
};
pub const DEFAULT_CHANGED: SchemaRule = SchemaRule {
    input: "input-default-changed",
    output: "output-default-changed",
};
pub const ADDITIONAL_PROPERTIES_CLOSED: SchemaRule = SchemaRule {
    input: "input-additional-properties-closed",
    output: "output-additional-properties-closed",
};
pub const ADDITIONAL_PROPERTIES_DECLARED_CLOSED: SchemaRule = SchemaRule {
    input: "input-additional-properties-declared-closed",
    output: "output-additional-properties-declared-closed",
};
pub const ADDITIONAL_PROPERTIES_OPENED: SchemaRule = SchemaRule {
    input: "input-additional-properties-opened",
    output: "output-additional-properties-opened",
};
pub const ANY_OF_BRANCH_ADDED: SchemaRule = SchemaRule {
    input: "input-any-of-branch-added",
    output: "output-any-of-branch-added",
};
pub const ANY_OF_BRANCH_REMOVED: SchemaRule = SchemaRule {
    input: "input-any-of-branch-removed",
    output: "output-any-of-branch-removed",
};
pub const ONE_OF_BRANCH_ADDED: SchemaRule = SchemaRule {
    input: "input-one-of-branch-added",
    output: "output-one-of-branch-added",
};
pub const ONE_OF_BRANCH_REMOVED: SchemaRule = SchemaRule {
    input: "input-one-of-branch-removed",
    output: "output-one-of-branch-removed",
};
pub const ALL_OF_BRANCH_ADDED: SchemaRule = SchemaRule {
    input: "input-all-of-branch-added",
    output: "output-all-of-branch-added",
};
pub const ALL_OF_BRANCH_REMOVED: SchemaRule = SchemaRule {
    input: "input-all-of-branch-removed",
    output: "output-all-of-branch-removed",
};
pub const REF_CHANGED: SchemaRule = SchemaRule {
    input: "input-ref-changed",
    output: "output-ref-changed",
};
pub const KEYWORD_CHANGED: SchemaRule = SchemaRule {
    input: "input-keyword-changed",
    output: "output-keyword-changed",
};
pub const UNKNOWN_KEYWORD_CHANGED: SchemaRule = SchemaRule {
    input: "input-unknown-keyword-changed",
    output: "output-unknown-keyword-changed",
};

// Bounds: KEYWORD_{TIGHTENED,LOOSENED,SET,REMOVED}.
pub const MINIMUM_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-minimum-tightened",
    output: "output-minimum-tightened",
};
pub const MINIMUM_LOOSENED: SchemaRule = SchemaRule {
    input: "input-minimum-loosened",
    output: "output-minimum-loosened",
};
pub const MINIMUM_SET: SchemaRule = SchemaRule {
    input: "input-minimum-set",
    output: "output-minimum-set",
};
pub const MINIMUM_REMOVED: SchemaRule = SchemaRule {
    input: "input-minimum-removed",
    output: "output-minimum-removed",
};
pub const EXCLUSIVE_MINIMUM_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-exclusive-minimum-tightened",
    output: "output-exclusive-minimum-tightened",
};
pub const EXCLUSIVE_MINIMUM_LOOSENED: SchemaRule = SchemaRule {
    input: "input-exclusive-minimum-loosened",
    output: "output-exclusive-minimum-loosened",
};
pub const EXCLUSIVE_MINIMUM_SET: SchemaRule = SchemaRule {
    input: "input-exclusive-minimum-set",
    output: "output-exclusive-minimum-set",
};
pub const EXCLUSIVE_MINIMUM_REMOVED: SchemaRule = SchemaRule {
    input: "input-exclusive-minimum-removed",
    output: "output-exclusive-minimum-removed",
};
pub const MAXIMUM_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-maximum-tightened",
    output: "output-maximum-tightened",
};
pub const MAXIMUM_LOOSENED: SchemaRule = SchemaRule {
    input: "input-maximum-loosened",
    output: "output-maximum-loosened",
};
pub const MAXIMUM_SET: SchemaRule = SchemaRule {
    input: "input-maximum-set",
    output: "output-maximum-set",
};
pub const MAXIMUM_REMOVED: SchemaRule = SchemaRule {
    input: "input-maximum-removed",
    output: "output-maximum-removed",
};
pub const EXCLUSIVE_MAXIMUM_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-exclusive-maximum-tightened",
    output: "output-exclusive-maximum-tightened",
};
pub const EXCLUSIVE_MAXIMUM_LOOSENED: SchemaRule = SchemaRule {
    input: "input-exclusive-maximum-loosened",
    output: "output-exclusive-maximum-loosened",
};
pub const EXCLUSIVE_MAXIMUM_SET: SchemaRule = SchemaRule {
    input: "input-exclusive-maximum-set",
    output: "output-exclusive-maximum-set",
};
pub const EXCLUSIVE_MAXIMUM_REMOVED: SchemaRule = SchemaRule {
    input: "input-exclusive-maximum-removed",
    output: "output-exclusive-maximum-removed",
};
pub const MIN_LENGTH_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-min-length-tightened",
    output: "output-min-length-tightened",
};
pub const MIN_LENGTH_LOOSENED: SchemaRule = SchemaRule {
    input: "input-min-length-loosened",
    output: "output-min-length-loosened",
};
pub const MIN_LENGTH_SET: SchemaRule = SchemaRule {
    input: "input-min-length-set",
    output: "output-min-length-set",
};
pub const MIN_LENGTH_REMOVED: SchemaRule = SchemaRule {
    input: "input-min-length-removed",
    output: "output-min-length-removed",
};
pub const MAX_LENGTH_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-max-length-tightened",
    output: "output-max-length-tightened",
};
pub const MAX_LENGTH_LOOSENED: SchemaRule = SchemaRule {
    input: "input-max-length-loosened",
    output: "output-max-length-loosened",
};
pub const MAX_LENGTH_SET: SchemaRule = SchemaRule {
    input: "input-max-length-set",
    output: "output-max-length-set",
};
pub const MAX_LENGTH_REMOVED: SchemaRule = SchemaRule {
    input: "input-max-length-removed",
    output: "output-max-length-removed",
};
pub const MIN_ITEMS_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-min-items-tightened",
    output: "output-min-items-tightened",
};
pub const MIN_ITEMS_LOOSENED: SchemaRule = SchemaRule {
    input: "input-min-items-loosened",
    output: "output-min-items-loosened",
};
pub const MIN_ITEMS_SET: SchemaRule = SchemaRule {
    input: "input-min-items-set",
    output: "output-min-items-set",
};
pub const MIN_ITEMS_REMOVED: SchemaRule = SchemaRule {
    input: "input-min-items-removed",
    output: "output-min-items-removed",
};
pub const MAX_ITEMS_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-max-items-tightened",
    output: "output-max-items-tightened",
};
pub const MAX_ITEMS_LOOSENED: SchemaRule = SchemaRule {
    input: "input-max-items-loosened",
    output: "output-max-items-loosened",
};
pub const MAX_ITEMS_SET: SchemaRule = SchemaRule {
    input: "input-max-items-set",
    output: "output-max-items-set",
};
pub const MAX_ITEMS_REMOVED: SchemaRule = SchemaRule {
    input: "input-max-items-removed",
    output: "output-max-items-removed",
};
pub const MIN_PROPERTIES_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-min-properties-tightened",
    output: "output-min-properties-tightened",
};
pub const MIN_PROPERTIES_LOOSENED: SchemaRule = SchemaRule {
    input: "input-min-properties-loosened",
    output: "output-min-properties-loosened",
};
pub const MIN_PROPERTIES_SET: SchemaRule = SchemaRule {
    input: "input-min-properties-set",
    output: "output-min-properties-set",
};
pub const MIN_PROPERTIES_REMOVED: SchemaRule = SchemaRule {
    input: "input-min-properties-removed",
    output: "output-min-properties-removed",
};
pub const MAX_PROPERTIES_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-max-properties-tightened",
    output: "output-max-properties-tightened",
};
pub const MAX_PROPERTIES_LOOSENED: SchemaRule = SchemaRule {
    input: "input-max-properties-loosened",
    output: "output-max-properties-loosened",
};
pub const MAX_PROPERTIES_SET: SchemaRule = SchemaRule {
    input: "input-max-properties-set",
    output: "output-max-properties-set",
};
pub const MAX_PROPERTIES_REMOVED: SchemaRule = SchemaRule {
    input: "input-max-properties-removed",
    output: "output-max-properties-removed",
};
pub const MIN_CONTAINS_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-min-contains-tightened",
    output: "output-min-contains-tightened",
};
pub const MIN_CONTAINS_LOOSENED: SchemaRule = SchemaRule {
    input: "input-min-contains-loosened",
    output: "output-min-contains-loosened",
};
pub const MIN_CONTAINS_SET: SchemaRule = SchemaRule {
    input: "input-min-contains-set",
    output: "output-min-contains-set",
};
pub const MIN_CONTAINS_REMOVED: SchemaRule = SchemaRule {
    input: "input-min-contains-removed",
    output: "output-min-contains-removed",
};
pub const MAX_CONTAINS_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-max-contains-tightened",
    output: "output-max-contains-tightened",
};
pub const MAX_CONTAINS_LOOSENED: SchemaRule = SchemaRule {
    input: "input-max-contains-loosened",
    output: "output-max-contains-loosened",
};
pub const MAX_CONTAINS_SET: SchemaRule = SchemaRule {
    input: "input-max-contains-set",
    output: "output-max-contains-set",
};
pub const MAX_CONTAINS_REMOVED: SchemaRule = SchemaRule {
    input: "input-max-contains-removed",
    output: "output-max-contains-removed",
};
pub const MULTIPLE_OF_TIGHTENED: SchemaRule = SchemaRule {
    input: "input-multiple-of-tightened",
    output: "output-multiple-of-tightened",
};
pub const MULTIPLE_OF_LOOSENED: SchemaRule = SchemaRule {
    input: "input-multiple-of-loosened",
    output: "output-multiple-of-loosened",
};
pub const MULTIPLE_OF_SET: SchemaRule = SchemaRule {
    input: "input-multiple-of-set",
    output: "output-multiple-of-set",
};
pub const MULTIPLE_OF_REMOVED: SchemaRule = SchemaRule {
    input: "input-multiple-of-removed",
    output: "output-multiple-of-removed",
};
