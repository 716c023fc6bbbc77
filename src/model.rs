//! The input tables: every column's name, type, whether it is required, and what it means.
//!
//! This is the one definition of the tables. The Arrow schemas, the line validator and
//! `docs/tables.md` (via `groundcheck tables --markdown`) are all derived from it, so they
//! cannot drift apart. Arrow fields are all nullable: "required" is enforced by the
//! validator with a file:line error, not by Arrow, so that Parquet written by older or
//! other tools still reads.

use std::sync::{Arc, LazyLock};

use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

/// What a column holds, as JSON on input and as Arrow in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Str,
    /// A string from a closed set.
    Enum(&'static [&'static str]),
    Int,
    Float,
    Bool,
    /// RFC 3339 with an offset (`Z` or `+02:00`); stored as microseconds UTC.
    Timestamp,
    /// `YYYY-MM-DD`.
    Date,
    /// Any JSON value, kept as canonical JSON text (keys sorted). A string whose content is
    /// a JSON object or array (the OpenAI style of encoding tool arguments) is taken as that
    /// JSON, not as a string.
    Json,
    /// A gold answer: number, string or array (no object, no null), kept as JSON text.
    Answer,
    /// A regular expression (Rust `regex` syntax), checked as the table is read: a bad one
    /// is a bad line naming the file, line and field, not a compute error later.
    Regex,
    List(Box<Ty>),
    Struct(Vec<Col>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Col {
    pub name: &'static str,
    pub ty: Ty,
    pub required: bool,
    pub doc: &'static str,
}

/// One input table: its SQL name, where it lives in a project folder, and its columns.
#[derive(Debug)]
pub struct TableSpec {
    pub name: &'static str,
    /// Path in a project folder, without extension: `cases` means `cases.jsonl`,
    /// `cases.parquet` or a folder `cases/`.
    pub location: &'static str,
    pub doc: &'static str,
    pub cols: Vec<Col>,
    pub schema: SchemaRef,
    /// A column whose values must be unique across the table's files (checked as the
    /// JSONL is read: a repeat is a bad line naming the first).
    pub unique: Option<&'static str>,
}

impl TableSpec {
    fn new(name: &'static str, location: &'static str, doc: &'static str, cols: Vec<Col>) -> Self {
        let schema = Arc::new(Schema::new(
            cols.iter().map(Col::arrow_field).collect::<Vec<_>>(),
        ));
        Self {
            name,
            location,
            doc,
            cols,
            schema,
            unique: None,
        }
    }

    fn unique(mut self, col: &'static str) -> Self {
        self.unique = Some(col);
        self
    }

    pub fn col(&self, name: &str) -> Option<&Col> {
        self.cols.iter().find(|c| c.name == name)
    }
}

impl Col {
    pub fn arrow_field(&self) -> Field {
        Field::new(self.name, self.ty.arrow_type(), true)
    }
}

impl Ty {
    pub fn arrow_type(&self) -> DataType {
        match self {
            Ty::Str | Ty::Enum(_) | Ty::Json | Ty::Answer | Ty::Regex => DataType::Utf8,
            Ty::Int => DataType::Int64,
            Ty::Float => DataType::Float64,
            Ty::Bool => DataType::Boolean,
            Ty::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            Ty::Date => DataType::Date32,
            Ty::List(item) => DataType::List(Arc::new(Field::new("item", item.arrow_type(), true))),
            Ty::Struct(cols) => DataType::Struct(Fields::from(
                cols.iter().map(Col::arrow_field).collect::<Vec<_>>(),
            )),
        }
    }

    /// How the type reads in documentation and error messages.
    pub fn describe(&self) -> String {
        match self {
            Ty::Str => "string".into(),
            Ty::Regex => "regular expression".into(),
            Ty::Enum(values) => format!("one of {}", values.join(" | ")),
            Ty::Int => "integer".into(),
            Ty::Float => "number".into(),
            Ty::Bool => "boolean".into(),
            Ty::Timestamp => "timestamp (RFC 3339 with offset)".into(),
            Ty::Date => "date (YYYY-MM-DD)".into(),
            Ty::Json => "JSON (kept as text)".into(),
            Ty::Answer => "number | string | array (kept as JSON text)".into(),
            Ty::List(item) => format!("list of {}", item.describe()),
            Ty::Struct(_) => "object".into(),
        }
    }
}

const REQ: bool = true;
const OPT: bool = false;

fn col(name: &'static str, ty: Ty, required: bool, doc: &'static str) -> Col {
    Col {
        name,
        ty,
        required,
        doc,
    }
}

fn strs() -> Ty {
    Ty::List(Box::new(Ty::Str))
}

pub const FAILURE_CLASSES: &[&str] = &["entity", "semantic", "structural", "temporal", "policy"];
pub const STEP_KINDS: &[&str] = &[
    "user",
    "assistant",
    "reasoning",
    "clarification",
    "tool_call",
    "tool_result",
    "answer",
];

/// `cases`: one labeled case per line, exactly seed 000's case schema.
pub static CASES: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "cases",
        "cases",
        "One gold record per line of `cases.jsonl`, the case schema of seed 000 (and, marked so, our tool-call extension of its gold).",
        vec![
            col("case_id", Ty::Str, REQ, "Unique id of the case."),
            col(
                "source_trace",
                Ty::Str,
                OPT,
                "Id of the production trace this case came from.",
            ),
            col("user_role", Ty::Str, REQ, "Role of the user who asked."),
            col(
                "as_user",
                Ty::Str,
                REQ,
                "Identity the runner impersonates; required for policy scoring.",
            ),
            col("question", Ty::Str, REQ, "The user's words, unedited."),
            col(
                "gold",
                Ty::Struct(vec![
                    col(
                        "answer",
                        Ty::Answer,
                        OPT,
                        "The correct answer; null only for a case scored by its expected calls alone (then `correct` is whether the calls match).",
                    ),
                    col(
                        "tolerance",
                        Ty::Float,
                        OPT,
                        "Absolute tolerance for numeric answers.",
                    ),
                    col(
                        "required_fields",
                        strs(),
                        REQ,
                        "`schema.table.column` or `tool.argument` the task requires.",
                    ),
                    col(
                        "forbidden_fields",
                        strs(),
                        OPT,
                        "Fields whose use marks the call ungrounded.",
                    ),
                    col(
                        "definition",
                        Ty::Str,
                        OPT,
                        "The governed predicate for each business term in the question; null when the question has none.",
                    ),
                    col(
                        "window",
                        Ty::Struct(vec![
                            col("start", Ty::Date, REQ, "First day of the window."),
                            col("end", Ty::Date, REQ, "Last day of the window (inclusive)."),
                            col(
                                "calendar",
                                Ty::Enum(&["fiscal", "calendar"]),
                                REQ,
                                "Which calendar the window is in.",
                            ),
                        ]),
                        OPT,
                        "The time window the question asks about; null when it asks about none.",
                    ),
                    col(
                        "freshness_bound_hours",
                        Ty::Float,
                        OPT,
                        "How old the data read may be; null if not applicable.",
                    ),
                    col(
                        "policy_scope",
                        Ty::Str,
                        OPT,
                        "The entitlement the policy oracle checks against.",
                    ),
                    col(
                        "expected_calls",
                        Ty::List(Box::new(Ty::Struct(vec![
                            col("tool", Ty::Str, REQ, "The tool to call."),
                            col(
                                "arguments",
                                Ty::Json,
                                OPT,
                                "Parameter -> list of acceptable values (BFCL's possible answers; `\"\"` in a list: may be left out).",
                            ),
                            col(
                                "parameters",
                                Ty::Json,
                                OPT,
                                "The tool's parameter schema (JSON Schema or BFCL's); null: types from the acceptable values.",
                            ),
                        ]))),
                        OPT,
                        "Not in seed 000 (our extension, docs/tool-calls.md): the tool calls a correct answer makes.",
                    ),
                    col(
                        "call_order",
                        Ty::Enum(&["any", "strict"]),
                        OPT,
                        "Whether the expected calls must come in their order (default any).",
                    ),
                    col(
                        "argument_match",
                        Ty::Enum(&["bfcl", "strict"]),
                        OPT,
                        "How argument values compare: BFCL's checker's rules (default) or exactly.",
                    ),
                    col(
                        "forbidden_tools",
                        strs(),
                        OPT,
                        "Tools the task must not call.",
                    ),
                ]),
                REQ,
                "The gold record: what a correct, grounded answer uses.",
            ),
            col(
                "label",
                Ty::Struct(vec![
                    col("correct", Ty::Bool, REQ, "Was the final answer correct."),
                    col(
                        "grounded",
                        Ty::Bool,
                        REQ,
                        "Was it correct for the right reason.",
                    ),
                    col(
                        "failure_class",
                        Ty::Enum(FAILURE_CLASSES),
                        OPT,
                        "The failure class, null when none.",
                    ),
                    col("note", Ty::Str, OPT, "Free text."),
                ]),
                OPT,
                "The human label of the source trace; null while unlabeled.",
            ),
            col(
                "cost",
                Ty::Struct(vec![
                    col("input_tokens", Ty::Int, REQ, "Input tokens."),
                    col("output_tokens", Ty::Int, REQ, "Output tokens."),
                    col("tool_calls", Ty::Int, REQ, "Tool calls made."),
                    col("turns", Ty::Int, REQ, "Turns taken."),
                    col("usd", Ty::Float, REQ, "Total cost in USD."),
                ]),
                OPT,
                "Cost of the source trace, from the client's usage report.",
            ),
        ],
    )
    // Seed 000: a case_id names one case.
    .unique("case_id")
});

/// `steps`: the traces, one event per row.
pub static STEPS: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "steps",
        "traces",
        "The traces: one event per line of the JSONL files under `traces/`.",
        vec![
            col(
                "run_id",
                Ty::Str,
                REQ,
                "The run (one pass of a suite against one server).",
            ),
            col("server", Ty::Str, REQ, "The MCP server under test."),
            col(
                "case_id",
                Ty::Str,
                OPT,
                "The case this trace answers; null for production traces.",
            ),
            col("trace_id", Ty::Str, REQ, "One conversation."),
            col(
                "step",
                Ty::Int,
                REQ,
                "Position of the event in its trace, from 1.",
            ),
            col("ts", Ty::Timestamp, OPT, "When the event happened."),
            col("kind", Ty::Enum(STEP_KINDS), REQ, "What the event is."),
            col(
                "call_id",
                Ty::Str,
                OPT,
                "Pairs a tool_call with its tool_result.",
            ),
            col(
                "tool",
                Ty::Str,
                OPT,
                "Tool name, on tool_call and tool_result.",
            ),
            col(
                "arguments",
                Ty::Json,
                OPT,
                "Tool arguments (JSON text), on tool_call.",
            ),
            col(
                "result",
                Ty::Json,
                OPT,
                "Tool result (JSON text), on tool_result.",
            ),
            col("is_error", Ty::Bool, OPT, "The tool result is an error."),
            col(
                "as_of",
                Ty::Timestamp,
                OPT,
                "Freshness timestamp the tool result carries; null when it carries none.",
            ),
            col(
                "as_user",
                Ty::Str,
                OPT,
                "End-user identity the call was made for.",
            ),
            col(
                "user_role",
                Ty::Str,
                OPT,
                "Role of that user, when the trace records it (stratifies `sample`).",
            ),
            col(
                "credential_subject",
                Ty::Str,
                OPT,
                "Identity the credential used for the call carries.",
            ),
            col("model", Ty::Str, OPT, "Model that produced the event."),
            col(
                "input_tokens",
                Ty::Int,
                OPT,
                "Input tokens billed for the event.",
            ),
            col(
                "output_tokens",
                Ty::Int,
                OPT,
                "Output tokens billed for the event.",
            ),
            col(
                "usd",
                Ty::Float,
                OPT,
                "Cost of the event in USD when the client reports it.",
            ),
            col(
                "text",
                Ty::Str,
                OPT,
                "Text of a user, assistant, reasoning, clarification or answer event.",
            ),
            col(
                "span_id",
                Ty::Str,
                OPT,
                "The OpenTelemetry span the event was read from (hex), for imported and collected traces: where a verdict on it goes back to (`annotate`).",
            ),
        ],
    )
});

pub static CATALOG: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "catalog",
        "context/catalog",
        "The warehouse catalog: one row per column.",
        vec![
            col(
                "schema_name",
                Ty::Str,
                OPT,
                "Schema; null when tables are not schema-qualified.",
            ),
            col("table_name", Ty::Str, REQ, "Table."),
            col("column_name", Ty::Str, REQ, "Column."),
            col("data_type", Ty::Str, REQ, "SQL type."),
            col(
                "is_primary_key",
                Ty::Bool,
                OPT,
                "Part of the table's primary key.",
            ),
            col(
                "foreign_key_to",
                Ty::Str,
                OPT,
                "`table.column` this column references.",
            ),
            col(
                "unit",
                Ty::Str,
                OPT,
                "Unit of an amount (USD, cents, seconds, …).",
            ),
            col("description", Ty::Str, OPT, "What the column means."),
        ],
    )
});

pub static GLOSSARY: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "glossary",
        "context/glossary",
        "Business terms and their governed definitions.",
        vec![
            col(
                "term",
                Ty::Str,
                REQ,
                "The business term (`active customer`).",
            ),
            col(
                "definition",
                Ty::Str,
                REQ,
                "The governed definition, as text.",
            ),
            col(
                "predicate",
                Ty::Str,
                OPT,
                "The governed predicate as a SQL boolean expression.",
            ),
            col(
                "time_column",
                Ty::Str,
                OPT,
                "`table.column` the metric's time window is defined on.",
            ),
            col("tools", strs(), OPT, "Tools that encode the definition."),
        ],
    )
});

pub static POLICIES: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "policies",
        "context/policies",
        "Entitlements: what a user or role may see. A row applies to `as_user` when set, else to every user of `role`.",
        vec![
            col("as_user", Ty::Str, OPT, "User the row applies to."),
            col("role", Ty::Str, OPT, "Role the row applies to."),
            col(
                "scope",
                Ty::Str,
                OPT,
                "Policy scope name (what `gold.policy_scope` names).",
            ),
            col(
                "row_filter",
                Ty::Str,
                OPT,
                "SQL boolean expression over result fields; rows outside it are not allowed. Null: all rows.",
            ),
            col(
                "allowed_columns",
                strs(),
                OPT,
                "Columns the user may see; null: all.",
            ),
            col(
                "masked_columns",
                strs(),
                OPT,
                "Columns that must come back masked.",
            ),
        ],
    )
});

pub static PRICING: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "pricing",
        "context/pricing",
        "Prices: a model's per-million-token rates, a tool's per-call price.",
        vec![
            col(
                "kind",
                Ty::Enum(&["model", "tool"]),
                REQ,
                "Whether `name` is a model or a tool.",
            ),
            col("name", Ty::Str, REQ, "Model or tool name."),
            col(
                "server",
                Ty::Str,
                OPT,
                "For a tool: the server it is priced on; null: any.",
            ),
            col(
                "usd_per_million_input",
                Ty::Float,
                OPT,
                "Model: USD per million input tokens.",
            ),
            col(
                "usd_per_million_output",
                Ty::Float,
                OPT,
                "Model: USD per million output tokens.",
            ),
            col("usd_per_call", Ty::Float, OPT, "Tool: USD per call."),
        ],
    )
});

pub static ID_SCHEMES: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "id_schemes",
        "context/id_schemes",
        "Identifier schemes and which tool parameters take each.",
        vec![
            col("scheme", Ty::Str, REQ, "Scheme name (`cust_id_v2`)."),
            col(
                "regex",
                Ty::Regex,
                REQ,
                "Regular expression a value of the scheme matches in full.",
            ),
            col(
                "parameters",
                strs(),
                OPT,
                "`tool.parameter` names that take this scheme.",
            ),
            col(
                "description",
                Ty::Str,
                OPT,
                "What the identifier identifies.",
            ),
        ],
    )
});

pub static FISCAL_CALENDAR: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "fiscal_calendar",
        "context/fiscal_calendar",
        "Fiscal periods and their bounds.",
        vec![
            col("period", Ty::Str, REQ, "Period name (`2026-Q2`)."),
            col(
                "period_type",
                Ty::Enum(&["year", "quarter", "month", "week"]),
                OPT,
                "Granularity.",
            ),
            col("period_start", Ty::Date, REQ, "First day."),
            col("period_end", Ty::Date, REQ, "Last day (inclusive)."),
        ],
    )
});

pub static REVIEWS: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "reviews",
        "reviews",
        "Human decisions on tasks the scorer was unsure of (`groundcheck review import` writes them). A decision wins over the automatic label; the latest decision of a task counts.",
        vec![
            col("run_id", Ty::Str, REQ, "The task's run."),
            col("server", Ty::Str, REQ, "The task's server."),
            col("case_id", Ty::Str, REQ, "The task's case."),
            col(
                "correct",
                Ty::Bool,
                OPT,
                "Decision on correct; null keeps the automatic value.",
            ),
            col(
                "grounded",
                Ty::Bool,
                OPT,
                "Decision on grounded; null keeps the automatic value.",
            ),
            col(
                "failure_class",
                Ty::Enum(&[
                    "entity",
                    "semantic",
                    "structural",
                    "temporal",
                    "policy",
                    "none",
                ]),
                OPT,
                "Decision on the failure class (`none`: no class); null keeps the automatic value.",
            ),
            col("reviewer", Ty::Str, REQ, "Who decided."),
            col("note", Ty::Str, OPT, "Why."),
            col(
                "decided_at",
                Ty::Timestamp,
                OPT,
                "When; the latest decision of a task counts.",
            ),
        ],
    )
});

pub static HEDGING_PHRASES: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "hedging_phrases",
        "context/hedging_phrases",
        "Phrases that mark a reasoning step as a guess (seed 000: \"sounds like\", \"probably\", \"I will assume\"). When the project has none, those three (and \"I'll assume\") are used.",
        vec![col(
            "phrase",
            Ty::Str,
            REQ,
            "A phrase, matched without case anywhere in a reasoning step.",
        )],
    )
});

pub static TOOL_CONTEXT: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "tool_context",
        "context/tool_context",
        "What each tool of a server reads, as its owner declares it: which argument carries SQL \
         (and in which dialect), or which catalog fields the tool reads. Scoring uses it to \
         know the fields a call used. Not in seed 000's schema; a tool without a row is read \
         from its latest snapshot (an argument described as SQL, or the table.column names \
         its description gives: queries/tool_lineage.sql), and a tool with neither is \
         warned about, as its calls can ground no catalog field.",
        vec![
            col("server", Ty::Str, REQ, "Server the tool is on."),
            col("tool", Ty::Str, REQ, "Tool name."),
            col(
                "sql_argument",
                Ty::Str,
                OPT,
                "Argument whose value is SQL (`sql`); its columns are the fields the call used.",
            ),
            col(
                "dialect",
                Ty::Str,
                OPT,
                "SQL dialect of that argument (generic, postgres, snowflake, …).",
            ),
            col(
                "fields",
                strs(),
                OPT,
                "Catalog fields the tool reads whatever its arguments (a task tool's lineage); an empty list: the tool reads no data field (list_tables).",
            ),
        ],
    )
});

pub static TOOL_SNAPSHOTS: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "tool_snapshots",
        "snapshots",
        "Tool definitions as a server advertised them: one row per tool per snapshot.",
        vec![
            col("server", Ty::Str, REQ, "Server the snapshot was taken of."),
            col(
                "captured_at",
                Ty::Timestamp,
                REQ,
                "When the snapshot was taken.",
            ),
            col("tool", Ty::Str, REQ, "Tool name."),
            col("title", Ty::Str, OPT, "Tool title."),
            col(
                "description",
                Ty::Str,
                OPT,
                "Tool description (model-visible).",
            ),
            col("input_schema", Ty::Json, OPT, "inputSchema (JSON text)."),
            col("output_schema", Ty::Json, OPT, "outputSchema (JSON text)."),
            col("annotations", Ty::Json, OPT, "annotations (JSON text)."),
            col(
                "version",
                Ty::Str,
                OPT,
                "Version the server declares for the tool, if any.",
            ),
            col(
                "text_hash",
                Ty::Str,
                OPT,
                "Hash of the model-visible text (name, title, description, parameter descriptions).",
            ),
            col(
                "schema_hash",
                Ty::Str,
                OPT,
                "Hash of the canonical structure (schemas without descriptions).",
            ),
        ],
    )
});

/// Every input table, in the order they are registered and documented.
/// `report_history`: every report ever recorded, one row per metric (long form).
pub static REPORT_HISTORY: LazyLock<TableSpec> = LazyLock::new(|| {
    TableSpec::new(
        "report_history",
        "history",
        "Every recorded report in long form, one row per server, run and metric (`groundcheck report --history DIR` appends a file per report).",
        vec![
            col(
                "recorded_at",
                Ty::Timestamp,
                REQ,
                "When the report was made.",
            ),
            col("server", Ty::Str, REQ, "Server under test."),
            col("run_id", Ty::Str, REQ, "The run reported on."),
            col(
                "metric",
                Ty::Str,
                REQ,
                "A report field (`correct_and_grounded`, `failures_by_class.semantic`, …).",
            ),
            col(
                "value",
                Ty::Float,
                OPT,
                "Its value; null when the report has none.",
            ),
            col(
                "note",
                Ty::Str,
                OPT,
                "What changed before this report, in the user's words (`--note`).",
            ),
        ],
    )
});

/// `external_policy`: the policy oracle's answer for each call it was asked about, as it
/// came (`eval::oracle`); queries/metrics/oracle.sql turns answers into violations.
pub const EXTERNAL_POLICY: &str = "external_policy";

pub fn external_policy_schema() -> SchemaRef {
    let list = || DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    Arc::new(Schema::new(vec![
        Field::new("run_id", DataType::Utf8, true),
        Field::new("server", DataType::Utf8, true),
        Field::new("trace_id", DataType::Utf8, true),
        Field::new("call_id", DataType::Utf8, true),
        // What was sent: the result's row count and its columns (sorted).
        Field::new("rows", DataType::Int64, true),
        Field::new("columns", list(), true),
        // The answer line, NULL when none came; then `failure` says why.
        Field::new("answer", DataType::Utf8, true),
        Field::new("failure", DataType::Utf8, true),
    ]))
}

pub fn all_tables() -> [&'static TableSpec; 13] {
    [
        &CASES,
        &STEPS,
        &CATALOG,
        &GLOSSARY,
        &POLICIES,
        &PRICING,
        &ID_SCHEMES,
        &FISCAL_CALENDAR,
        &HEDGING_PHRASES,
        &TOOL_CONTEXT,
        &TOOL_SNAPSHOTS,
        &REVIEWS,
        &REPORT_HISTORY,
    ]
}

pub fn table(name: &str) -> Option<&'static TableSpec> {
    all_tables().into_iter().find(|t| t.name == name)
}

/// The reference page `docs/tables.md`, generated so that it cannot disagree with the code.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Input tables\n\n\
         Generated by `groundcheck tables --markdown` from `src/model.rs`; do not edit by hand.\n\n\
         Every column is nullable in Arrow and Parquet; **required** columns are enforced when \
         JSONL is read (a line without one is rejected with its file, line and field). Keys not \
         listed are ignored. Nested columns are read in SQL as `gold.required_fields` or \
         `gold.\"window\".\"start\"` (quote `window`, `start`, `end`).\n",
    );
    for t in all_tables() {
        out.push_str(&format!(
            "\n## `{}`\n\n{}\n\nProject location: `{}.jsonl`, `{}.parquet` or a folder `{}/` of such files.\n\n",
            t.name, t.doc, t.location, t.location, t.location
        ));
        out.push_str("| column | type | required | meaning |\n|---|---|---|---|\n");
        for c in &t.cols {
            doc_rows(&mut out, "", c);
        }
    }
    out
}

fn doc_rows(out: &mut String, prefix: &str, c: &Col) {
    let path = format!("{prefix}{}", c.name);
    let arrow = match &c.ty {
        Ty::Struct(_) => "Struct".to_string(),
        other => format!("{}", other.arrow_type()),
    };
    out.push_str(&format!(
        "| `{path}` | {} (`{arrow}`) | {} | {} |\n",
        c.ty.describe(),
        if c.required { "yes" } else { "no" },
        c.doc
    ));
    if let Ty::Struct(children) = &c.ty {
        for child in children {
            doc_rows(out, &format!("{path}."), child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_unique_and_snake_case() {
        let names: Vec<_> = all_tables().iter().map(|t| t.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for n in names {
            assert!(n.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{n}");
        }
    }

    #[test]
    fn cases_schema_nests_like_the_seed() {
        let gold = CASES.schema.field_with_name("gold").unwrap();
        let DataType::Struct(fields) = gold.data_type() else {
            panic!("gold is not a struct")
        };
        let names: Vec<_> = fields.iter().map(|f| f.name().as_str()).collect();
        assert_eq!(
            names,
            [
                "answer",
                "tolerance",
                "required_fields",
                "forbidden_fields",
                "definition",
                "window",
                "freshness_bound_hours",
                "policy_scope",
                "expected_calls",
                "call_order",
                "argument_match",
                "forbidden_tools"
            ]
        );
    }
}
