//! The report page's plots, each from the report rows or a view: failures by class and
//! cost per correct answer (report.sql), precision against recall
//! (precision_recall_points), and a trend per metric (trend_points, trend_marks). The
//! SVG is drawn by `output::html::chart`.

use std::collections::{BTreeMap, BTreeSet};

use datafusion::prelude::SessionContext;
use serde_json::{Map, Value};

use super::s;
use crate::engine::query::{collect, rows_as_json};
use crate::error::Result;
use crate::eval::report;
use crate::output::html::chart;
use crate::output::html::page::{Plot, Side};

/// Tasks per failure class, a bar group per server and run (report.sql's failures_by_class).
pub(super) fn failures_plot(rows: &[Map<String, Value>], sides: &[Side]) -> Result<Plot> {
    let classes: Vec<String> = report::CLASSES.iter().map(|c| c.to_string()).collect();
    let series: Vec<(String, Vec<f64>)> = rows
        .iter()
        .zip(sides)
        .map(|(r, side)| {
            let v = classes
                .iter()
                .map(|c| {
                    report::field_value(r, &format!("failures_by_class.{c}"))
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0)
                })
                .collect();
            (side.label.clone(), v)
        })
        .collect();
    Ok(Plot {
        id: "failures".into(),
        title: "Failures by class".into(),
        caption: "Tasks per failure class (each task counts once, in its first class: entity, semantic, structural, temporal, policy), per server and run: report.sql's failures_by_class.".into(),
        svg: chart::bars("tasks", &classes, &series, false)?,
    })
}

/// Grounding precision against recall, a point per (server, run, precision, recall)
/// with its task count (precision_recall_points).
pub(super) async fn scatter_plot(
    ctx: &SessionContext,
    sides: &[Side],
    rows: &[Map<String, Value>],
) -> Result<Plot> {
    let (_, batches) = collect(
        ctx,
        "SELECT server, run_id, precision, recall, tasks FROM precision_recall_points \
         ORDER BY server, run_id, precision, recall",
    )
    .await?;
    let mut by_side: BTreeMap<String, chart::Points> = BTreeMap::new();
    for r in rows_as_json(&batches)? {
        let key = format!("{}@{}", s(&r, "server"), s(&r, "run_id"));
        let f = |k: &str| r.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let n = r.get("tasks").and_then(Value::as_u64).unwrap_or(0);
        by_side
            .entry(key)
            .or_default()
            .push((f("recall"), f("precision"), n));
    }
    let drawn: u64 = by_side.values().flatten().map(|p| p.2).sum();
    let total: u64 = rows
        .iter()
        .filter_map(|r| r.get("cases").and_then(Value::as_u64))
        .sum();
    let series: Vec<(String, chart::Points)> = sides
        .iter()
        .map(|side| {
            (
                side.label.clone(),
                by_side.remove(&side.key).unwrap_or_default(),
            )
        })
        .collect();
    Ok(Plot {
        id: "precision-recall".into(),
        title: "Grounding precision vs recall, per task".into(),
        caption: format!(
            "Each point is the tasks of one server at one (recall, precision), to two decimals; its area grows with their number (queries/precision_recall.sql). {drawn} of {total} tasks drawn; the rest have no precision or recall (no call used a field, or nothing is required)."
        ),
        svg: chart::scatter("grounding recall", "grounding precision", &series)?,
    })
}

/// Cost per correct and grounded answer per server and run; None when no side has one.
pub(super) fn cost_plot(rows: &[Map<String, Value>], sides: &[Side]) -> Result<Option<Plot>> {
    let values: Vec<Option<f64>> = rows
        .iter()
        .map(|r| r.get("cost_per_correct_answer_usd").and_then(Value::as_f64))
        .collect();
    if values.iter().all(Option::is_none) {
        return Ok(None);
    }
    let cats: Vec<String> = sides.iter().map(|s| s.label.clone()).collect();
    let none: Vec<&str> = sides
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(s, _)| s.key.as_str())
        .collect();
    let mut caption = "Total cost across all tasks / tasks answered correctly and grounded (seed 000's cost per correct answer: report.sql's cost_per_correct_answer_usd), in USD.".to_string();
    if !none.is_empty() {
        caption.push_str(&format!(
            " No bar for {}: no task correct and grounded.",
            none.join(", ")
        ));
    }
    Ok(Some(Plot {
        id: "cost".into(),
        title: "Cost per correct and grounded answer".into(),
        caption,
        svg: chart::bars(
            "USD",
            &cats,
            &[(
                "cost per correct answer".into(),
                values.iter().map(|v| v.unwrap_or(0.0)).collect(),
            )],
            false,
        )?,
    }))
}

/// A plot per metric with history (trend_points), lines per server, the tool changes
/// between recordings marked (trend_marks); or why there is none.
pub(super) async fn trend_plots(ctx: &SessionContext) -> Result<(Vec<Plot>, Vec<String>)> {
    let (_, b) = collect(
        ctx,
        "SELECT metric, server, CAST(to_unixtime(recorded_at) AS BIGINT) AS at, value \
         FROM trend_points WHERE value IS NOT NULL ORDER BY metric, server, recorded_at, run_id",
    )
    .await?;
    let points = rows_as_json(&b)?;
    if points.is_empty() {
        return Ok((
            Vec::new(),
            vec!["Metric trends: no report_history in the project (record reports with `report --history DIR`)."
                .to_string()],
        ));
    }
    let (_, b) = collect(
        ctx,
        "SELECT server, CAST(to_unixtime(captured_at) AS BIGINT) AS at, changes, breaking, what \
         FROM trend_marks ORDER BY captured_at, server",
    )
    .await?;
    let marks = rows_as_json(&b)?;
    let mut by_metric: BTreeMap<String, BTreeMap<String, Vec<(i64, f64)>>> = BTreeMap::new();
    for p in &points {
        let at = p.get("at").and_then(Value::as_i64).unwrap_or(0);
        let v = p.get("value").and_then(Value::as_f64).unwrap_or(0.0);
        by_metric
            .entry(s(p, "metric"))
            .or_default()
            .entry(s(p, "server"))
            .or_default()
            .push((at, v));
    }
    let mut plots = Vec::new();
    for (metric, series) in by_metric {
        let servers: BTreeSet<&String> = series.keys().collect();
        let (lo, hi) = series
            .values()
            .flatten()
            .fold((i64::MAX, i64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let m: Vec<(i64, String)> = marks
            .iter()
            .filter(|k| servers.contains(&s(k, "server")))
            .filter_map(|k| {
                let at = k.get("at").and_then(Value::as_i64)?;
                (at >= lo && at <= hi).then(|| {
                    let what = s(k, "what");
                    let short: String = what.chars().take(28).collect();
                    (
                        at,
                        if short.len() < what.len() {
                            format!("{short}…")
                        } else {
                            short
                        },
                    )
                })
            })
            .collect();
        let series: Vec<(String, Vec<(i64, f64)>)> = series.into_iter().collect();
        let n_marks = m.len();
        plots.push(Plot {
            id: format!("trend-{}", metric.replace('_', "-")),
            title: format!("{} over time", metric.replace('_', " ")),
            caption: format!(
                "Each recorded report's {metric} (report_history, queries/trend_points.sql), per server; dashed lines: {n_marks} tool change(s) captured between recordings (queries/trend_marks.sql)."
            ),
            svg: chart::lines_over_time(&metric, &series, &m)?,
        });
    }
    Ok((plots, Vec::new()))
}
