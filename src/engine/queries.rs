//! The `.sql` files of `queries/`, compiled into the binary and registered as views.
//!
//! Each file opens with a header of `-- key: value` lines (a value may go on over lines
//! that start `--   `). `metric`, `report`, `label` or `view` names the view; `inputs`
//! lists the tables and views it reads, which orders registration. The header is the
//! documentation of the definition the SQL implements: `definition`, `grain` and `nulls`
//! must be there too.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::prelude::SessionContext;

use crate::error::{Error, Result};

macro_rules! query_files {
    ($($f:literal),* $(,)?) => { &[$(($f, include_str!(concat!("../../queries/", $f)))),*] };
}

/// Every query file, by path under `queries/`.
pub const FILES: &[(&str, &str)] = query_files![
    "agreement.sql",
    "agreement_by_class.sql",
    "agreement_differences.sql",
    "call_checks.sql",
    "case_steps.sql",
    "call_fields.sql",
    "call_time_filters.sql",
    "calls.sql",
    "catalog_entries.sql",
    "demo_overview.sql",
    "drift/breaking_by_server.sql",
    "drift/changes.sql",
    "drift/recent_changes.sql",
    "drift/under_bumped.sql",
    "failures.sql",
    "failures/entity.sql",
    "failures/policy.sql",
    "failures/semantic.sql",
    "failures/structural.sql",
    "failures/temporal.sql",
    "hedged_steps.sql",
    "label_flips.sql",
    "labels.sql",
    "labels_after.sql",
    "labels_before.sql",
    "metrics/clarification.sql",
    "metrics/cost.sql",
    "metrics/definition_match.sql",
    "metrics/freshness.sql",
    "metrics/grounding.sql",
    "metrics/oracle.sql",
    "metrics/policy.sql",
    "metrics/tool_calls.sql",
    "latest_tools.sql",
    "not_scored.sql",
    "lineage_warnings.sql",
    "policy_banner.sql",
    "precision_recall.sql",
    "replay.sql",
    "response_anomalies.sql",
    "replay_summary.sql",
    "report.sql",
    "report_cases.sql",
    "report_history_rows.sql",
    "suite/curation.sql",
    "suite/impact.sql",
    "task_clarifications.sql",
    "task_failures.sql",
    "task_policy.sql",
    "task_terms.sql",
    "tasks.sql",
    "tool_health.sql",
    "tool_lineage.sql",
    "trace_outcomes.sql",
    "trend_marks.sql",
    "trend_points.sql",
    "trends.sql",
];

/// The header keys every query file must have, besides its kind.
pub const REQUIRED_KEYS: &[&str] = &["definition", "grain", "inputs", "nulls"];
pub const KINDS: &[&str] = &["metric", "report", "label", "view"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub file: String,
    /// The view name: the value of the `metric`/`report`/`label`/`view` key.
    pub name: String,
    pub header: BTreeMap<String, String>,
    pub sql: String,
}

impl Query {
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let bad = |why: String| Error::Bug(format!("queries/{file}: {why}"));
        let mut header: BTreeMap<String, String> = BTreeMap::new();
        let mut last: Option<String> = None;
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("--") else {
                break;
            };
            if let Some(more) = rest.strip_prefix("   ") {
                let key = last
                    .as_ref()
                    .ok_or_else(|| bad("continuation line before any key".into()))?;
                let v = header.get_mut(key).expect("key inserted before");
                v.push(' ');
                v.push_str(more.trim());
                continue;
            }
            let Some((k, v)) = rest.trim().split_once(':') else {
                return Err(bad(format!("header line without `key:`: {line}")));
            };
            let k = k.trim().to_string();
            header.insert(k.clone(), v.trim().to_string());
            last = Some(k);
        }
        let kinds: Vec<_> = KINDS.iter().filter(|k| header.contains_key(**k)).collect();
        let [kind] = kinds.as_slice() else {
            return Err(bad(format!(
                "the header must name exactly one of {}",
                KINDS.join(", ")
            )));
        };
        for key in REQUIRED_KEYS {
            if header.get(*key).is_none_or(|v| v.is_empty()) {
                return Err(bad(format!("the header has no `{key}:`")));
            }
        }
        let name = header[**kind].clone();
        let sql = text.trim().trim_end_matches(';').to_string();
        Ok(Self {
            file: file.to_string(),
            name,
            header,
            sql,
        })
    }

    pub fn inputs(&self) -> Vec<String> {
        self.header
            .get("inputs")
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub fn all() -> Result<Vec<Query>> {
    FILES.iter().map(|(f, t)| Query::parse(f, t)).collect()
}

/// The query file whose view is `name`.
pub fn named(name: &str) -> Result<Query> {
    all()?
        .into_iter()
        .find(|q| q.name == name)
        .ok_or_else(|| Error::Bug(format!("no query file defines the view {name}")))
}

/// Registers the views `names`, in that order, in a context that has what they read
/// (the report's views over a labels file, say).
pub async fn register_named(ctx: &SessionContext, names: &[&str]) -> Result<()> {
    for name in names {
        let q = named(name)?;
        let df = ctx
            .sql(&q.sql)
            .await
            .map_err(|e| Error::Bug(format!("queries/{}: {e}", q.file)))?;
        ctx.register_table(q.name.as_str(), df.into_view())?;
    }
    Ok(())
}

/// Creates one view per query file, each after the views it reads.
pub async fn register_views(ctx: &SessionContext) -> Result<()> {
    register_views_with(ctx, |_, view| Ok(view)).await
}

/// Every query file, each after the views it reads: the order views are registered in
/// (here, and by the Python package in a notebook's own context).
pub fn in_order() -> Result<Vec<Query>> {
    let mut pending = all()?;
    let mut done: Vec<Query> = Vec::new();
    while !pending.is_empty() {
        let ready = pending.iter().position(|q| {
            q.inputs()
                .iter()
                .all(|i| done.iter().any(|d| &d.name == i) || !pending.iter().any(|p| &p.name == i))
        });
        let Some(i) = ready else {
            let names: Vec<_> = pending.iter().map(|q| q.name.as_str()).collect();
            return Err(Error::Bug(format!(
                "queries read each other in a cycle: {}",
                names.join(", ")
            )));
        };
        done.push(pending.remove(i));
    }
    Ok(done)
}

/// `register_views`, where `place(name, view)` says what to register under each view's
/// name: the view itself, or a table standing in for it (chunked labeling computes a
/// view read by several others once per chunk, into memory, instead of once per reader,
/// which is what an inlined view costs).
pub async fn register_views_with(
    ctx: &SessionContext,
    mut place: impl FnMut(&str, Arc<dyn TableProvider>) -> Result<Arc<dyn TableProvider>>,
) -> Result<()> {
    for q in in_order()? {
        let df = ctx
            .sql(&q.sql)
            .await
            .map_err(|e| Error::Bug(format!("queries/{}: {e}", q.file)))?;
        ctx.register_table(q.name.as_str(), place(&q.name, df.into_view())?)?;
    }
    Ok(())
}

/// Whether view `name` reads `table`, directly or through other views (by their
/// `inputs:`).
pub fn reads(name: &str, table: &str) -> Result<bool> {
    Ok(reads_in(&all()?, name, table))
}

/// `reads` over queries already parsed (`all`), for callers that ask many times.
pub fn reads_in(all: &[Query], name: &str, table: &str) -> bool {
    let mut todo = vec![name.to_string()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(n) = todo.pop() {
        if n == table {
            return true;
        }
        if seen.contains(&n) {
            continue;
        }
        if let Some(q) = all.iter().find(|q| q.name == n) {
            todo.extend(q.inputs());
        }
        seen.push(n);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_queries_is_compiled_in_and_has_a_header() {
        // At run time (cargo sets it): the binary may have been built in another checkout.
        let dir = std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
            + "/queries";
        let mut on_disk: Vec<String> = Vec::new();
        fn walk(base: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(base, &p, out);
                } else if p.extension().is_some_and(|x| x == "sql") {
                    out.push(p.strip_prefix(base).unwrap().display().to_string());
                }
            }
        }
        walk(
            std::path::Path::new(&dir),
            std::path::Path::new(&dir),
            &mut on_disk,
        );
        on_disk.sort();
        let mut listed: Vec<String> = FILES.iter().map(|(f, _)| f.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed, "queries/ and queries::FILES differ");
        let names: Vec<_> = all().unwrap().into_iter().map(|q| q.name).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "two query files share a name");
    }

    /// The failure classes are one list (`model::FAILURE_CLASSES`, also the
    /// `failure_classes` table); the two places SQL must spell them out follow it in order.
    #[test]
    fn sql_spells_the_failure_classes_as_the_model_lists_them() {
        let classes = crate::model::FAILURE_CLASSES;
        let sql = |name: &str| named(name).unwrap().sql;
        let order = |text: &str, pattern: &str| -> Vec<String> {
            let mut found: Vec<(usize, String)> = classes
                .iter()
                .filter_map(|c| {
                    text.find(&pattern.replace("{}", c))
                        .map(|i| (i, c.to_string()))
                })
                .collect();
            found.sort();
            found.into_iter().map(|(_, c)| c).collect()
        };
        // labels.failure_class: the first class found, in the seed's precedence.
        assert_eq!(
            order(
                &sql("labels"),
                "WHEN array_has(failure_classes, '{}') THEN '{}'"
            ),
            classes
        );
        // report.failures_by_class: one field per class.
        assert_eq!(
            order(
                &sql("report"),
                "'{}', count(*) FILTER (WHERE failure_class = '{}')"
            ),
            classes
        );
    }

    #[test]
    fn header_parsing() {
        let q = Query::parse(
            "x.sql",
            "-- metric: m\n-- definition: a\n--   b\n-- grain: g\n-- inputs: steps, cases\n-- nulls: n\nSELECT 1;\n",
        )
        .unwrap();
        assert_eq!(q.name, "m");
        assert_eq!(q.header["definition"], "a b");
        assert_eq!(q.inputs(), ["steps", "cases"]);
        assert!(q.sql.ends_with("SELECT 1"));
        let e = Query::parse("y.sql", "-- metric: m\n-- grain: g\nSELECT 1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "queries/y.sql: the header has no `definition:`"
        );
        let e = Query::parse("z.sql", "-- metric: m\n-- report: r\nSELECT 1").unwrap_err();
        assert!(e.to_string().contains("exactly one of"));
    }
}
