//! Time windows and grain: which timestamp columns a query bounds and with what, whether
//! it aggregates a parent table's measure after a one-to-many join (fan-out), and whether
//! it adds or compares amounts of different units.
//!
//! Both come from the one analysis every SQL function shares (`sql::analysis`, which has
//! `time_filters` and `grain_issues` of a SQL text), so
//! aliases, CTEs and subqueries resolve as for `sql_fields`; keys and units come from the
//! catalog entries' annotations.

use std::collections::BTreeMap;

use super::Catalog;
use super::lineage::SelectShape;
use super::normal::{Atom, Bound, Lit, tighter};

/// Bounds a query puts on one timestamp or date column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeFilter {
    pub field: String,
    /// (value, inclusive): a date or timestamp literal, or the text of a relative bound
    /// such as `current_date - interval '7 days'`.
    pub lower: Option<(String, bool)>,
    pub upper: Option<(String, bool)>,
}

fn is_time_like(l: &Lit) -> bool {
    match l {
        Lit::Str(s) => {
            let b = s.as_bytes();
            b.len() >= 10
                && b[..4].iter().all(u8::is_ascii_digit)
                && b[4] == b'-'
                && b[5..7].iter().all(u8::is_ascii_digit)
                && b[7] == b'-'
                && b[8..10].iter().all(u8::is_ascii_digit)
        }
        Lit::Expr(_) => true,
        _ => false,
    }
}

/// Every column the query's filters (atoms) bound by dates, timestamps or relative time
/// expressions, with the tightest bounds found, in field order.
pub(crate) fn time_filters_of(atoms: &[Atom]) -> Vec<TimeFilter> {
    let mut by_field: BTreeMap<String, (Option<Bound>, Option<Bound>)> = BTreeMap::new();
    for atom in atoms {
        let (col, lo, hi) = match atom {
            Atom::Range { col, lo, hi } => (col, lo.clone(), hi.clone()),
            Atom::In {
                col,
                values,
                negated: false,
            } if values.len() == 1 => {
                let v = values.iter().next().expect("one").clone();
                (col, Some((v.clone(), true)), Some((v, true)))
            }
            _ => continue,
        };
        let time = lo.as_ref().is_some_and(|b| is_time_like(&b.0))
            || hi.as_ref().is_some_and(|b| is_time_like(&b.0));
        if !time {
            continue;
        }
        let e = by_field.entry(col.clone()).or_default();
        e.0 = tighter(e.0.take(), lo, true);
        e.1 = tighter(e.1.take(), hi, false);
    }
    let text = |b: Option<Bound>| b.map(|(l, incl)| (plain(&l), incl));
    by_field
        .into_iter()
        .map(|(field, (lo, hi))| TimeFilter {
            field,
            lower: text(lo),
            upper: text(hi),
        })
        .collect()
}

fn plain(l: &Lit) -> String {
    match l {
        Lit::Str(s) | Lit::Num(s) | Lit::Expr(s) => s.clone(),
        Lit::Bool(b) => b.to_string(),
    }
}

fn table_of(field: &str) -> &str {
    field.rsplit_once('.').map(|(t, _)| t).unwrap_or(field)
}

/// Fan-out and unit findings of a query's SELECT shapes, one sentence each, sorted.
pub(crate) fn grain_issues_of(shapes: &[SelectShape], catalog: &Catalog) -> Vec<String> {
    let mut issues = Vec::new();
    for shape in shapes {
        for (x, y) in &shape.equalities {
            for (child, parent) in [(x, y), (y, x)] {
                let refers = catalog
                    .info(child)
                    .and_then(|i| i.references.as_deref())
                    .and_then(|r| catalog.field_named(r))
                    .is_some_and(|r| r.eq_ignore_ascii_case(parent));
                if !refers {
                    continue;
                }
                let (ct, pt) = (table_of(child), table_of(parent));
                for (func, distinct, args) in &shape.aggregates {
                    let reads_parent = args.iter().any(|f| table_of(f).eq_ignore_ascii_case(pt));
                    let reads_child = args.iter().any(|f| table_of(f).eq_ignore_ascii_case(ct));
                    if *distinct || !reads_parent || reads_child {
                        continue;
                    }
                    let measure: Vec<&str> = args.iter().map(String::as_str).collect();
                    issues.push(format!(
                        "fan-out: {func}({}) after the one-to-many join to {ct} on {child} -> {parent}",
                        measure.join(", ")
                    ));
                }
            }
        }
        for clash in &shape.unit_clashes {
            issues.push(format!("units: {clash}"));
        }
    }
    issues.sort();
    issues.dedup();
    issues
}
