//! The HTML report's data (`output::html::page`), from the same SQL as report.json: the
//! report view over a labels file for every figure, `report_cases` and
//! `precision_recall_points` over the labels for the table and the scatter, and, from
//! the project the labels came from, `case_steps` for the trace panels and
//! `trend_points`/`trend_marks` for the trends.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use serde_json::{Map, Value};

use crate::engine::queries;
use crate::engine::query::{collect, rows_as_json};
use crate::engine::session::{Session, SessionOptions};
use crate::error::{Error, Result};
use crate::eval::report;
use crate::output::html::chart;
use crate::output::html::marks::{self, Mark};
use crate::output::html::page::{
    AgreementTable, CaseRow, Cell, FieldUse, MetricRow, Panel, Plot, ReportPage, Side, StepView,
};
use crate::output::text::fmt_value;

mod plots;

/// The views a page reads over the labels, besides the report's.
const LABEL_VIEWS: &[&str] = &["report_cases", "precision_recall_points"];

/// Longest tool result shown in a panel, in characters.
const RESULT_CHARS: usize = 1500;

/// How to build the page.
#[derive(Debug, Clone)]
pub struct Options {
    /// Cases the table holds at most (with a panel each); above, the worst half and a
    /// sample.
    pub max_cases: usize,
    /// Where the labels came from, in words (the page's subtitle).
    pub source: String,
    /// The project to read the traces and history from; None: panels without steps.
    pub project: Option<SessionOptions>,
}

/// A report field, its words, and the query files whose header defines it.
struct Field {
    field: String,
    label: String,
    views: Vec<&'static str>,
}

/// The fields the overview shows, in the printed table's order (report::table_fields).
fn fields(rows: &[Map<String, Value>]) -> Vec<Field> {
    report::table_fields(rows)
        .into_iter()
        .map(|f| {
            let views: Vec<&'static str> = match f.as_str() {
                "grounding_precision" | "grounding_recall" => vec!["task_grounding"],
                "definition_match_rate" => vec!["report", "task_definition_match"],
                "freshness_pass_rate" => vec!["report", "task_freshness"],
                "policy_violation_rate" => vec!["report", "call_policy"],
                "clarification_loops_per_task" => vec!["report", "trace_clarifications"],
                "cost_total_usd" | "cost_per_correct_answer_usd" => vec!["report", "task_cost"],
                f if f.starts_with("tool_")
                    || f == "argument_accuracy"
                    || f == "exact_sequence_rate" =>
                {
                    vec!["task_tool_calls"]
                }
                _ => vec!["report"],
            };
            let label = match f.strip_prefix("failures_by_class.") {
                Some(c) => format!("failures: {c}"),
                None => f.replace('_', " "),
            };
            Field {
                field: f,
                label,
                views,
            }
        })
        .collect()
}

const HEADLINE: &[&str] = &[
    "pass_rate",
    "correct_and_grounded",
    "correct_not_grounded",
    "grounding_precision",
    "grounding_recall",
    "definition_match_rate",
    "freshness_pass_rate",
    "policy_violation_rate",
    "clarification_loops_per_task",
    "cost_per_correct_answer_usd",
];

/// What the header of `view`'s file says of `field`: for report.sql, the parenthesis
/// after the field's name when there is one (its own words for that field), else the
/// whole definition.
fn definition(view: &str, field: &str) -> Result<String> {
    let q = queries::named(view)?;
    let text = q.header.get("definition").cloned().unwrap_or_default();
    if view != "report" {
        return Ok(text);
    }
    let name = field.split('.').next().unwrap_or(field);
    let needle = format!("{name} (");
    // The field's own name, not the end of a longer one (pass_rate in freshness_pass_rate).
    let at = text.match_indices(&needle).map(|(i, _)| i).find(|&i| {
        !text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    });
    let Some(at) = at else {
        return Ok(text);
    };
    let rest = &text[at + needle.len()..];
    let mut depth = 1;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(format!("{name}: {}", &rest[..i]));
                }
            }
            _ => {}
        }
    }
    Ok(text)
}

fn cell(v: Option<&Value>) -> Cell {
    Cell {
        text: fmt_value(v),
        value: v.cloned().unwrap_or(Value::Null).to_string(),
    }
}

pub(super) fn s(r: &Map<String, Value>, k: &str) -> String {
    r.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn opt_s(r: &Map<String, Value>, k: &str) -> Option<String> {
    r.get(k).and_then(Value::as_str).map(str::to_string)
}

fn flag(r: &Map<String, Value>, k: &str) -> Option<bool> {
    r.get(k).and_then(Value::as_bool)
}

fn strings(r: &Map<String, Value>, k: &str) -> Vec<String> {
    r.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The report page over `labels` (a labels.parquet of the labeler).
pub async fn report_page(labels: &Path, opts: &Options) -> Result<ReportPage> {
    let ctx = report::over_labels(labels, None).await?;
    queries::register_named(&ctx, LABEL_VIEWS).await?;
    let (_, batches) = report::report(&ctx).await?;
    let rows = rows_as_json(&batches)?;
    if rows.is_empty() {
        return Err(Error::Input(format!(
            "{}: no labels to report on",
            labels.display()
        )));
    }
    let sides: Vec<Side> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| Side {
            server: s(r, "server"),
            run_id: s(r, "run_id"),
            key: format!("{}@{}", s(r, "server"), s(r, "run_id")),
            label: if rows
                .iter()
                .filter(|o| s(o, "server") == s(r, "server"))
                .count()
                > 1
            {
                format!("{}@{}", s(r, "server"), s(r, "run_id"))
            } else {
                s(r, "server")
            },
            color: chart::css_color(i),
        })
        .collect();
    let mut metrics = Vec::new();
    for f in fields(&rows) {
        let mut defs = Vec::new();
        for v in &f.views {
            defs.push(definition(v, &f.field)?);
        }
        let sources: Vec<String> = f
            .views
            .iter()
            .map(|v| queries::named(v).map(|q| q.file))
            .collect::<Result<_>>()?;
        metrics.push(MetricRow {
            headline: HEADLINE.contains(&f.field.as_str()),
            cells: rows
                .iter()
                .map(|r| cell(report::field_value(r, &f.field)))
                .collect(),
            definition: defs.join(" "),
            source: sources.join(", queries/"),
            label: f.label,
            field: f.field,
        });
    }
    let banner = report::policy_violations(&ctx).await?;
    let warnings = report::lineage_gaps(&ctx).await?;
    let not_scored = report::not_scored_rows(&ctx).await?;
    let agreement = Some(report::agreement_rows(&ctx).await?)
        .filter(|a| a.labeled > 0 || a.reviewed > 0)
        .map(|a| AgreementTable {
            agree: a.agree,
            labeled: a.labeled,
            reviewed: a.reviewed,
            changed: a.changed,
            by_class: a
                .by_class
                .iter()
                .map(|c| {
                    [
                        c.class.clone(),
                        c.hand.to_string(),
                        c.auto.to_string(),
                        c.both.to_string(),
                    ]
                })
                .collect(),
            differences: a
                .differences
                .iter()
                .map(|d| {
                    [
                        d.case_id.clone(),
                        d.server.clone(),
                        d.auto.join(", "),
                        d.hand.join(", "),
                    ]
                })
                .collect(),
        });

    let mut plots = vec![
        plots::failures_plot(&rows, &sides)?,
        plots::scatter_plot(&ctx, &sides, &rows).await?,
    ];
    let mut missing = Vec::new();
    match plots::cost_plot(&rows, &sides)? {
        Some(p) => plots.push(p),
        None => missing.push(
            "Cost per correct and grounded answer: no server answered a task correctly and grounded, so there is nothing to divide by."
                .to_string(),
        ),
    }

    let (cases, cases_total, cases_note) = case_rows(&ctx, opts.max_cases).await?;
    let picked: Vec<(String, String, String)> = cases
        .iter()
        .map(|c| (c.run_id.clone(), c.server.clone(), c.case_id.clone()))
        .collect();
    let mut panels = label_panels(&ctx, &picked).await?;
    let mut panels_note = None;
    match &opts.project {
        Some(project) => {
            let session = open_for(project.clone(), &picked).await?;
            let found = add_steps(&session.ctx, &mut panels).await?;
            if found == 0 && !panels.is_empty() {
                return Err(Error::Input(format!(
                    "{} has no steps for any of the {} cases shown from {}: pass the --data they were labeled from (or --no-traces)",
                    project.data,
                    panels.len(),
                    labels.display()
                )));
            }
            if found < panels.len() {
                panels_note = Some(format!(
                    "{} of {} cases have no steps in {}: their panels show the label only.",
                    panels.len() - found,
                    panels.len(),
                    project.data
                ));
            }
            let (trend, why) = plots::trend_plots(&session.ctx).await?;
            plots.extend(trend);
            missing.extend(why);
        }
        None => {
            panels_note = Some(
                "The panels show each case's label and evidence but not its steps: the traces were not read (render with --data to show them)."
                    .to_string(),
            );
            missing.push(
                "Metric trends: not drawn, the project's report_history was not read (render with --data)."
                    .to_string(),
            );
        }
    }
    let mut cases = cases;
    for (c, p) in cases.iter_mut().zip(&panels) {
        c.panel = Some(p.id.clone());
    }
    Ok(ReportPage {
        title: "groundcheck report".into(),
        source: opts.source.clone(),
        banner,
        warnings,
        not_scored,
        sides,
        metrics,
        plots,
        missing,
        agreement,
        cases,
        cases_total,
        cases_note,
        panels,
        panels_note,
    })
}

/// The table's rows: every task when there are at most `max`; else the worst half (by
/// `concern`) and a sample (by `sample_key`) of the rest.
async fn case_rows(
    ctx: &SessionContext,
    max: usize,
) -> Result<(Vec<CaseRow>, u64, Option<String>)> {
    let (_, b) = collect(ctx, "SELECT count(*) AS n FROM report_cases").await?;
    let total = rows_as_json(&b)?
        .first()
        .and_then(|r| r.get("n"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let order = "ORDER BY concern DESC, run_id, server, case_id";
    let (rows, note) = if total as usize <= max {
        let (_, b) = collect(ctx, &format!("SELECT * FROM report_cases {order}")).await?;
        (rows_as_json(&b)?, None)
    } else {
        let worst = max / 2;
        let (_, w) = collect(
            ctx,
            &format!("SELECT * FROM report_cases WHERE concern > 0 {order} LIMIT {worst}"),
        )
        .await?;
        let mut rows = rows_as_json(&w)?;
        let keys: BTreeSet<String> = rows.iter().map(|r| s(r, "sample_key")).collect();
        let (_, sample) = collect(
            ctx,
            &format!(
                "SELECT * FROM report_cases ORDER BY sample_key LIMIT {}",
                max - rows.len() + keys.len()
            ),
        )
        .await?;
        let worst_n = rows.len();
        for r in rows_as_json(&sample)? {
            if rows.len() >= max {
                break;
            }
            if !keys.contains(&s(&r, "sample_key")) {
                rows.push(r);
            }
        }
        let sampled = rows.len() - worst_n;
        rows[worst_n..].sort_by(|a, b| {
            let k = |r: &Map<String, Value>| {
                (
                    -r.get("concern").and_then(Value::as_i64).unwrap_or(0),
                    s(r, "run_id"),
                    s(r, "server"),
                    s(r, "case_id"),
                )
            };
            k(a).cmp(&k(b))
        });
        (
            rows,
            Some(format!(
                "{total} tasks: this table holds the {worst_n} of most concern (policy violation, wrong, correct but not grounded, undecided, needs review) and a sample of {sampled} others. Every task is in labels.parquet beside this page."
            )),
        )
    };
    let fmt = |r: &Map<String, Value>, k: &str| match r.get(k).and_then(Value::as_f64) {
        Some(v) => format!("{v:.2}"),
        None => "-".into(),
    };
    let cases = rows
        .iter()
        .map(|r| CaseRow {
            panel: None,
            server: s(r, "server"),
            run_id: s(r, "run_id"),
            case_id: s(r, "case_id"),
            correct: flag(r, "correct"),
            grounded: flag(r, "grounded"),
            failure_class: opt_s(r, "failure_class"),
            needs_review: flag(r, "needs_human_review").unwrap_or(false),
            cost_usd: r.get("cost_usd").and_then(Value::as_f64),
            cost: match r.get("cost_usd").and_then(Value::as_f64) {
                Some(v) => format!("{v:.4}"),
                None => "-".into(),
            },
            precision: fmt(r, "grounding_precision"),
            recall: fmt(r, "grounding_recall"),
            concern: r.get("concern").and_then(Value::as_i64).unwrap_or(0),
        })
        .collect();
    Ok((cases, total, note))
}

fn picked_table(picked: &[(String, String, String)]) -> Result<Arc<MemTable>> {
    use arrow::array::StringArray;
    use arrow::datatypes::{DataType, Field as ArrowField, Schema};
    let schema = Arc::new(Schema::new(vec![
        ArrowField::new("run_id", DataType::Utf8, false),
        ArrowField::new("server", DataType::Utf8, false),
        ArrowField::new("case_id", DataType::Utf8, false),
    ]));
    let col = |f: fn(&(String, String, String)) -> &str| {
        Arc::new(StringArray::from_iter_values(picked.iter().map(f))) as arrow::array::ArrayRef
    };
    let batch = arrow::array::RecordBatch::try_new(
        schema.clone(),
        vec![col(|p| &p.0), col(|p| &p.1), col(|p| &p.2)],
    )?;
    Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
}

/// A panel per picked task, from its label: verdicts, review reasons, evidence.
async fn label_panels(
    ctx: &SessionContext,
    picked: &[(String, String, String)],
) -> Result<Vec<Panel>> {
    ctx.register_table("html_picked", picked_table(picked)?)?;
    let (_, b) = collect(
        ctx,
        "SELECT l.* FROM labels l JOIN html_picked p ON p.run_id = l.run_id \
         AND p.server = l.server AND p.case_id = l.case_id",
    )
    .await?;
    let mut by_key: BTreeMap<(String, String, String), Map<String, Value>> = BTreeMap::new();
    for r in rows_as_json(&b)? {
        by_key.insert((s(&r, "run_id"), s(&r, "server"), s(&r, "case_id")), r);
    }
    Ok(picked
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let r = by_key.get(k).cloned().unwrap_or_default();
            Panel {
                id: format!("case-{}", i + 1),
                run_id: k.0.clone(),
                server: k.1.clone(),
                case_id: k.2.clone(),
                question: None,
                as_user: opt_s(&r, "as_user"),
                user_role: opt_s(&r, "user_role"),
                correct: flag(&r, "correct"),
                grounded: flag(&r, "grounded"),
                failure_class: opt_s(&r, "failure_class"),
                answer: opt_s(&r, "answer"),
                review_reasons: strings(&r, "review_reasons"),
                task_evidence: strings(&r, "failure_evidence"),
                gold: String::new(),
                steps: Vec::new(),
            }
        })
        .collect())
}

/// The project's session with only the picked cases' steps and cases (a label depends on
/// its own task only, as in chunked labeling), so the panels' views run over a few
/// traces however large the project.
async fn open_for(opts: SessionOptions, picked: &[(String, String, String)]) -> Result<Session> {
    let session = Session::open_tables(opts).await?;
    let ctx = &session.ctx;
    ctx.register_table("html_picked", picked_table(picked)?)?;
    // A list of literals, not a subquery: a filter on the scan, where a semi-join would
    // sort every step of the project (the sessions prefer sort-merge joins).
    let ids: BTreeSet<&str> = picked.iter().map(|p| p.2.as_str()).collect();
    let list = if ids.is_empty() {
        "NULL".to_string()
    } else {
        ids.iter()
            .map(|c| format!("'{}'", c.replace('\'', "''")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let in_steps = format!("case_id IS NULL OR case_id IN ({list})");
    let in_cases = format!("case_id IN ({list})");
    for (name, cond) in [
        // Steps without a case_id may be a call's result, paired by trace (as in chunks).
        ("steps", in_steps.as_str()),
        ("cases", in_cases.as_str()),
    ] {
        let source = ctx
            .deregister_table(name)?
            .ok_or_else(|| Error::Config(format!("the project has no table {name}")))?;
        let full = format!("html_all_{name}");
        ctx.register_table(full.as_str(), source)?;
        let view = ctx
            .sql(&format!("SELECT * FROM {full} WHERE {cond}"))
            .await?
            .into_view();
        ctx.register_table(name, view)?;
    }
    session.register_views().await?;
    Ok(session)
}

/// Fills the panels' question, gold record and steps from the project; returns how many
/// panels found steps.
async fn add_steps(ctx: &SessionContext, panels: &mut [Panel]) -> Result<usize> {
    let (_, b) = collect(ctx, "SELECT case_id, question, gold FROM cases").await?;
    let mut cases: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for r in rows_as_json(&b)? {
        cases.insert(s(&r, "case_id"), r);
    }
    let (_, b) = collect(
        ctx,
        "SELECT s.* FROM case_steps s JOIN html_picked p ON p.run_id = s.run_id \
         AND p.server = s.server AND p.case_id = s.case_id \
         ORDER BY s.run_id, s.server, s.case_id, s.trace_id, s.step",
    )
    .await?;
    let mut steps: BTreeMap<(String, String, String), Vec<StepView>> = BTreeMap::new();
    for r in rows_as_json(&b)? {
        let key = (s(&r, "run_id"), s(&r, "server"), s(&r, "case_id"));
        steps.entry(key).or_default().push(step_view(&r));
    }
    let mut found = 0;
    for p in panels.iter_mut() {
        if let Some(c) = cases.get(&p.case_id) {
            p.question = opt_s(c, "question");
            let mut gold = c.get("gold").cloned().unwrap_or(Value::Null);
            // gold.answer is kept as JSON text (a number, a string or an array): shown as
            // the value it spells.
            if let Some(a) = gold.get_mut("answer")
                && let Some(v) = a
                    .as_str()
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
            {
                *a = v;
            }
            p.gold = serde_json::to_string_pretty(&gold).unwrap_or_default();
        }
        if let Some(st) = steps.remove(&(p.run_id.clone(), p.server.clone(), p.case_id.clone())) {
            found += 1;
            // Evidence pinned to a step is not repeated above the steps.
            let pinned: BTreeSet<&String> = st.iter().flat_map(|s| &s.evidence).collect();
            let guessed = st.iter().any(|s| s.guessed);
            p.task_evidence.retain(|e| {
                !(pinned.contains(e) || guessed && e.starts_with("semantic/hedging: "))
            });
            p.steps = st;
        }
    }
    Ok(found)
}

fn step_view(r: &Map<String, Value>) -> StepView {
    let required = strings(r, "required");
    let forbidden = strings(r, "forbidden");
    let logic: BTreeSet<String> = strings(r, "logic_fields").into_iter().collect();
    let used: Vec<(String, Mark)> = strings(r, "fields")
        .into_iter()
        .map(|f| {
            let m = Mark::of(&f, &required, &forbidden);
            (f, m)
        })
        .collect();
    let tool = opt_s(r, "tool");
    let kind = s(r, "kind");
    let sql = opt_s(r, "sql");
    let arguments = match (&sql, kind.as_str(), opt_s(r, "arguments")) {
        (None, "tool_call", Some(a)) => {
            Some(marks::arguments(tool.as_deref().unwrap_or(""), &a, &used))
        }
        _ => None,
    };
    let result = opt_s(r, "result");
    let cut = result
        .as_ref()
        .is_some_and(|t| t.chars().count() > RESULT_CHARS);
    StepView {
        n: r.get("step").and_then(Value::as_i64).unwrap_or(0),
        trace_id: s(r, "trace_id"),
        kind,
        sql: sql.as_deref().map(|q| marks::sql(q, &used)),
        arguments,
        fields: used
            .iter()
            .map(|(f, m)| FieldUse {
                logic: logic.contains(f),
                field: f.clone(),
                mark: *m,
            })
            .collect(),
        result: result.map(|t| t.chars().take(RESULT_CHARS).collect()),
        result_cut: cut,
        is_error: flag(r, "is_error").unwrap_or(false),
        as_of: opt_s(r, "as_of"),
        text: opt_s(r, "text"),
        guessed: flag(r, "guessed").unwrap_or(false),
        evidence: strings(r, "evidence"),
        tool,
    }
}

/// Whether a report field is better higher (`better`), lower, or neither (`none`): cases
/// count what was run, and seed 000 calls some clarification good.
pub fn direction(metric: &str) -> Option<bool> {
    match metric {
        "correct"
        | "correct_and_grounded"
        | "grounding_precision"
        | "grounding_recall"
        | "definition_match_rate"
        | "freshness_pass_rate"
        | "pass_rate" => Some(true),
        "policy_violation_rate"
        | "cost_total_usd"
        | "cost_per_correct_answer_usd"
        | "needs_human_review"
        | "correct_undecided"
        | "correct_not_grounded" => Some(false),
        m if m.starts_with("failures") => Some(false),
        _ => None,
    }
}

/// Writes the report page over `labels` (a labeler's labels.parquet) to `path`.
pub async fn write_report(labels: &Path, opts: &Options, path: &Path) -> Result<()> {
    let page = report_page(labels, opts).await?;
    let html = crate::output::html::report(&page)?;
    crate::output::write_atomic(path, html.as_bytes()).map_err(|e| Error::io(path.display(), e))
}

/// Writes the page of `report diff A B` (`diff_page`) to `path`, creating its folder.
pub fn write_diff(
    a: &str,
    b: &str,
    deltas: &[crate::eval::diff::Delta],
    flips: &[crate::eval::diff::Flip],
    path: &Path,
) -> Result<()> {
    let page = diff_page(a, b, deltas, flips)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), e))?;
    }
    let html = crate::output::html::diff(&page)?;
    crate::output::write_atomic(path, html.as_bytes()).map_err(|e| Error::io(path.display(), e))
}

/// The page of `report diff A B`: every delta, coloured by the metric's direction, the
/// rates side by side, and the cases that flipped.
pub fn diff_page(
    a: &str,
    b: &str,
    deltas: &[crate::eval::diff::Delta],
    flips: &[crate::eval::diff::Flip],
) -> Result<crate::output::html::page::DiffPage> {
    use crate::output::html::page::{DeltaRow, DiffPage, FlipRow};
    let rows: Vec<DeltaRow> = deltas
        .iter()
        .map(|d| {
            let moved = match (
                d.a.as_ref().and_then(Value::as_f64),
                d.b.as_ref().and_then(Value::as_f64),
            ) {
                (Some(x), Some(y)) if (y - x).abs() > 1e-12 => Some(y > x),
                (Some(_), Some(_)) => None,
                _ => None,
            };
            let trend = match (moved, direction(&d.metric)) {
                (None, _) => "same",
                (Some(_), None) => "moved",
                (Some(up), Some(higher)) if up == higher => "better",
                _ => "worse",
            };
            DeltaRow {
                metric: d.metric.clone(),
                a: cell(d.a.as_ref()),
                b: cell(d.b.as_ref()),
                delta: d.delta.clone(),
                trend: trend.into(),
            }
        })
        .collect();
    let rates: Vec<&crate::eval::diff::Delta> = deltas
        .iter()
        .filter(|d| d.metric.ends_with("_rate") || d.metric.starts_with("grounding_"))
        .collect();
    let cats: Vec<String> = rates.iter().map(|d| d.metric.replace('_', " ")).collect();
    let side = |f: fn(&crate::eval::diff::Delta) -> Option<&Value>| -> Vec<f64> {
        rates
            .iter()
            .map(|d| f(d).and_then(Value::as_f64).unwrap_or(0.0))
            .collect()
    };
    let svg = chart::bars(
        "rate",
        &cats,
        &[
            (format!("A: {a}"), side(|d| d.a.as_ref())),
            (format!("B: {b}"), side(|d| d.b.as_ref())),
        ],
        false,
    )?;
    Ok(DiffPage {
        title: "groundcheck report diff".into(),
        a: a.into(),
        b: b.into(),
        deltas: rows,
        flips: flips
            .iter()
            .map(|f| FlipRow {
                case_id: f.case_id.clone(),
                change: f.change.clone(),
                regression: f.regression,
            })
            .collect(),
        plots: vec![Plot {
            id: "rates".into(),
            title: "Rates, A and B".into(),
            caption: "The report's rates and grounding means on each side (report.sql over each side's labels); a NULL rate draws no bar.".into(),
            svg,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_come_from_the_sql_headers() {
        let d = definition("report", "pass_rate").unwrap();
        assert!(d.starts_with("pass_rate: correct / cases"), "{d}");
        let d = definition("task_grounding", "grounding_precision").unwrap();
        assert!(d.contains("Grounding precision = fields used"), "{d}");
        // A field the header does not name on its own gets the whole definition.
        let whole = queries::named("report").unwrap().header["definition"].clone();
        assert_eq!(definition("report", "cases").unwrap(), whole);
    }
}
