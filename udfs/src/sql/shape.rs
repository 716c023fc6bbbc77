//! Time windows and grain: which timestamp columns a query bounds and with what, whether
//! it aggregates a parent table's measure after a one-to-many join (fan-out), and whether
//! it adds or compares amounts of different units.
//!
//! Both come from the one analysis every SQL function shares (`sql::analysis`), so
//! aliases, CTEs and subqueries resolve as for `sql_fields`; keys and units come from the
//! catalog entries' annotations.

use std::collections::BTreeMap;

use super::analysis::analyse;
use super::lineage::SelectShape;
use super::normal::{Atom, Bound, Lit, tighter};
use super::{Catalog, Dialect};

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

/// Every column the query's filters bound by dates, timestamps or relative time
/// expressions, with the tightest bounds found, in field order.
pub fn time_filters(
    sql: &str,
    dialect: &Dialect,
    catalog: &Catalog,
) -> Result<Vec<TimeFilter>, String> {
    analyse(sql, dialect, catalog).facts.map(|f| f.time_filters)
}

/// The time filters among a query's filter atoms (`time_filters`).
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

/// Fan-out and unit findings, one sentence each, sorted.
pub fn grain_issues(
    sql: &str,
    dialect: &Dialect,
    catalog: &Catalog,
) -> Result<Vec<String>, String> {
    analyse(sql, dialect, catalog).facts.map(|f| f.grain_issues)
}

/// The grain findings of a query's SELECT shapes (`grain_issues`).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cat() -> Catalog {
        Catalog::from_entries([
            "orders.id pk",
            "orders.customer_id -> customers.id",
            "orders.total_cents [cents]",
            "orders.created_at",
            "orders.closed_at",
            "order_lines.id pk",
            "order_lines.order_id -> orders.id",
            "order_lines.unit_price_usd [USD]",
            "order_lines.quantity",
            "customers.id pk",
            "customers.name",
        ])
    }

    fn d() -> Dialect {
        Dialect::from_name("postgres").unwrap()
    }

    #[test]
    fn fan_out_of_the_seed() {
        let sql = "SELECT o.customer_id, sum(o.total_cents) FROM orders o JOIN order_lines ol ON ol.order_id = o.id GROUP BY o.customer_id";
        assert_eq!(
            grain_issues(sql, &d(), &cat()).unwrap(),
            [
                "fan-out: sum(orders.total_cents) after the one-to-many join to order_lines on order_lines.order_id -> orders.id"
            ]
        );
        // Summing the child's own measure, or a DISTINCT count of the parent, is fine.
        let ok = "SELECT o.customer_id, sum(ol.quantity), count(DISTINCT o.id) FROM orders o JOIN order_lines ol ON ol.order_id = o.id GROUP BY 1";
        assert!(grain_issues(ok, &d(), &cat()).unwrap().is_empty());
        // Many-to-one (orders to customers) does not fan orders out.
        let ok = "SELECT c.name, sum(o.total_cents) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1";
        assert!(grain_issues(ok, &d(), &cat()).unwrap().is_empty());
    }

    #[test]
    fn units() {
        let sql = "SELECT o.id FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE o.total_cents > l.unit_price_usd";
        assert_eq!(
            grain_issues(sql, &d(), &cat()).unwrap(),
            ["units: orders.total_cents [cents] > order_lines.unit_price_usd [USD]"]
        );
        let sql = "SELECT sum(o.total_cents) + sum(l.unit_price_usd) FROM orders o, order_lines l";
        assert_eq!(
            grain_issues(sql, &d(), &cat()).unwrap(),
            ["units: orders.total_cents [cents] + order_lines.unit_price_usd [USD]"]
        );
        let ok = "SELECT o.total_cents / 100.0 > l.unit_price_usd FROM orders o, order_lines l";
        assert!(grain_issues(ok, &d(), &cat()).unwrap().is_empty());
    }

    #[test]
    fn windows() {
        let sql = "SELECT count(*) FROM orders o WHERE o.created_at >= DATE '2026-04-01' AND o.created_at < '2026-07-01' AND o.total_cents > 0 AND closed_at > current_date - interval '7 days'";
        let got = time_filters(sql, &d(), &cat()).unwrap();
        assert_eq!(
            got,
            [
                TimeFilter {
                    field: "orders.closed_at".into(),
                    lower: Some(("current_date - interval '7 days'".into(), false)),
                    upper: None
                },
                TimeFilter {
                    field: "orders.created_at".into(),
                    lower: Some(("2026-04-01".into(), true)),
                    upper: Some(("2026-07-01".into(), false))
                },
            ]
        );
        let between = time_filters(
            "SELECT 1 FROM orders WHERE created_at BETWEEN '2026-01-01' AND '2026-03-31'",
            &d(),
            &cat(),
        )
        .unwrap();
        assert_eq!(between[0].upper, Some(("2026-03-31".into(), true)));
        assert!(time_filters("SELEC", &d(), &cat()).is_err());
    }
}
