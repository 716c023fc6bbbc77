//! What the HTML pages show, as plain data: the report, a diff of two runs, a drift
//! report. `eval::page` and `drift::format` fill these from their SQL and rows; the
//! templates lay them out.

use serde::Serialize;

use super::marks::{Mark, Piece};

/// A plot: an inline SVG and what it shows.
#[derive(Debug, Clone, Serialize)]
pub struct Plot {
    pub id: String,
    pub title: String,
    /// One or two sentences: what is drawn and from which SQL.
    pub caption: String,
    /// The SVG document (plotters' output, which escapes its text).
    pub svg: String,
}

/// A figure in a table: what is shown, and the value as in report.json (for tests and
/// for sorting).
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub text: String,
    /// The JSON text of the value (`null` for NULL).
    pub value: String,
}

/// One row of the side-by-side overview: a report field per side.
#[derive(Debug, Clone, Serialize)]
pub struct MetricRow {
    /// The report field (`grounding_precision`, `failures_by_class.semantic`, …).
    pub field: String,
    /// Its name in words.
    pub label: String,
    /// The definition, from the `.sql` header that computes it.
    pub definition: String,
    /// From which query file.
    pub source: String,
    pub cells: Vec<Cell>,
    /// A headline metric (shown as a card on the first screen).
    pub headline: bool,
}

/// A server and run under test.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub server: String,
    pub run_id: String,
    /// `server@run_id`, the key cells and points use.
    pub key: String,
    /// How plots name it: the server, or `server@run_id` when a server ran more than once.
    pub label: String,
    pub color: String,
}

/// A row of the case table.
#[derive(Debug, Clone, Serialize)]
pub struct CaseRow {
    pub panel: Option<String>,
    pub server: String,
    pub run_id: String,
    pub case_id: String,
    pub correct: Option<bool>,
    pub grounded: Option<bool>,
    pub failure_class: Option<String>,
    pub needs_review: bool,
    pub cost_usd: Option<f64>,
    pub cost: String,
    pub precision: String,
    pub recall: String,
    pub concern: i64,
}

/// A used field and its mark, listed beside a call.
#[derive(Debug, Clone, Serialize)]
pub struct FieldUse {
    pub field: String,
    pub mark: Mark,
    /// Read by the call's logic (filters, joins, grouping, aggregates), not only shown.
    pub logic: bool,
}

/// One step of a trace, as seed 000's cards show it.
#[derive(Debug, Clone, Serialize)]
pub struct StepView {
    pub n: i64,
    pub trace_id: String,
    pub kind: String,
    pub tool: Option<String>,
    /// The SQL the call ran, cut into marked pieces.
    pub sql: Option<Vec<Piece>>,
    /// The arguments of a call without SQL, as marked `name: value` lines.
    pub arguments: Option<Vec<Piece>>,
    pub fields: Vec<FieldUse>,
    pub result: Option<String>,
    pub result_cut: bool,
    pub is_error: bool,
    pub as_of: Option<String>,
    pub text: Option<String>,
    /// A reasoning step that hedges: where the model guessed.
    pub guessed: bool,
    /// `class/rule: evidence` of the symptoms tied to this step.
    pub evidence: Vec<String>,
}

/// A task's panel: its label, its gold record and its steps.
#[derive(Debug, Clone, Serialize)]
pub struct Panel {
    pub id: String,
    pub server: String,
    pub run_id: String,
    pub case_id: String,
    pub question: Option<String>,
    pub as_user: Option<String>,
    pub user_role: Option<String>,
    pub correct: Option<bool>,
    pub grounded: Option<bool>,
    pub failure_class: Option<String>,
    pub answer: Option<String>,
    pub review_reasons: Vec<String>,
    /// Symptoms of the whole task (not tied to one step).
    pub task_evidence: Vec<String>,
    /// The gold record, as JSON.
    pub gold: String,
    pub steps: Vec<StepView>,
}

/// The report page.
/// A server and figure not scored, and why (a `not_scored` row).
#[derive(Debug, Clone, Serialize)]
pub struct NotScoredNote {
    pub server: String,
    pub figure: String,
    pub tasks: i64,
    pub of_tasks: i64,
    pub reason: String,
}

/// The agreement views as the page shows them: the counts, a row of cells per class
/// (class, hand, auto, both) and per differing task (case, server, automatic, hand).
#[derive(Debug, Clone, Serialize)]
pub struct AgreementTable {
    pub agree: i64,
    pub labeled: i64,
    pub reviewed: i64,
    pub changed: i64,
    pub by_class: Vec<[String; 4]>,
    pub differences: Vec<[String; 4]>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportPage {
    pub title: String,
    /// Where the labels came from.
    pub source: String,
    pub banner: Vec<String>,
    pub warnings: Vec<String>,
    /// What the servers are not scored on and why (queries/not_scored.sql).
    pub not_scored: Vec<NotScoredNote>,
    pub sides: Vec<Side>,
    pub metrics: Vec<MetricRow>,
    pub plots: Vec<Plot>,
    /// Why a plot is missing (no history, say), by plot title.
    pub missing: Vec<String>,
    /// Agreement with hand labels; None when no task has a hand label or a review.
    pub agreement: Option<AgreementTable>,
    pub cases: Vec<CaseRow>,
    pub cases_total: u64,
    /// Set when the table holds only some of the cases.
    pub cases_note: Option<String>,
    pub panels: Vec<Panel>,
    /// Set when the panels could not show the traces (no --data).
    pub panels_note: Option<String>,
}

/// A metric's change between two sides of `report diff`.
#[derive(Debug, Clone, Serialize)]
pub struct DeltaRow {
    pub metric: String,
    pub a: Cell,
    pub b: Cell,
    pub delta: String,
    /// better, worse or same, by the metric's direction; none when it has none.
    pub trend: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlipRow {
    pub case_id: String,
    pub change: String,
    pub regression: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffPage {
    pub title: String,
    pub a: String,
    pub b: String,
    pub deltas: Vec<DeltaRow>,
    pub flips: Vec<FlipRow>,
    pub plots: Vec<Plot>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChangeRow {
    pub action: String,
    pub severity: String,
    pub tool: String,
    pub path: String,
    pub rule: String,
    pub message: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DriftPage {
    pub title: String,
    pub summary: String,
    pub block: usize,
    pub warn: usize,
    pub allow: usize,
    pub changes: Vec<ChangeRow>,
    pub versions: Vec<String>,
    pub replay: Vec<String>,
    pub plots: Vec<Plot>,
}
