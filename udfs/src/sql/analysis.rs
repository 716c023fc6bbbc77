//! One analysis of a query for every SQL function: a single parse and a single walk
//! gives the fields (`sql_fields`), the filter atoms (`predicate_match`), the time windows
//! (`sql_time_filters`) and the grain findings (`sql_grain_issues`). Labeling asks all four
//! of the same call's SQL; sharing the analysis (`common::analysis`, a memo by SQL text,
//! dialect and catalog) parses it once instead of once per function and per term.
//!
//! Collecting filters and shapes does not change the fields or the reasons: the walk
//! resolves every column once, and what the collectors resolve again gives no reason.

use super::lineage::{Analyzer, Fields};
use super::normal::Atom;
use super::shape::{TimeFilter, grain_issues_of, time_filters_of};
use super::{Catalog, Dialect};

/// Everything the SQL functions report of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// What `sql_fields` returns (a parse failure is its one reason).
    pub fields: Fields,
    /// The rest, or why the SQL could not be analysed (an unknown dialect, a parse error,
    /// too large): `sql_time_filters` and `sql_grain_issues` are then NULL and
    /// `predicate_match` is unsure.
    pub facts: Result<Facts, String>,
}

/// The facts of a query that parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// Every conjunct of every filter (WHERE, JOIN ON, HAVING, QUALIFY, FILTER), as atoms
    /// over resolved columns.
    pub filters: Vec<Atom>,
    pub time_filters: Vec<TimeFilter>,
    pub grain_issues: Vec<String>,
}

impl Analysis {
    /// The analysis of SQL that could not be analysed, for `reason`.
    pub fn failed(reason: String) -> Self {
        Self {
            fields: Fields {
                reasons: vec![reason.clone()],
                ..Default::default()
            },
            facts: Err(reason),
        }
    }
}

/// Analyses the statements of `sql`: queries are walked; any other statement is a reason
/// for `sql_fields` (and nothing for the rest).
pub fn analyse(sql: &str, dialect: &Dialect, catalog: &Catalog) -> Analysis {
    let statements = match dialect.parse(sql) {
        Ok(s) => s,
        Err(reason) => return Analysis::failed(reason),
    };
    let mut a = Analyzer::new(dialect, catalog);
    a.filters = Some(Vec::new());
    a.shapes = Some(Vec::new());
    a.statements(&statements);
    let filters = a.filters.take().unwrap_or_default();
    let shapes = a.shapes.take().unwrap_or_default();
    let facts = Facts {
        time_filters: time_filters_of(&filters),
        grain_issues: grain_issues_of(&shapes, catalog),
        filters,
    };
    Analysis {
        fields: a.finish(),
        facts: Ok(facts),
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

/// Fan-out and unit findings, one sentence each, sorted.
pub fn grain_issues(
    sql: &str,
    dialect: &Dialect,
    catalog: &Catalog,
) -> Result<Vec<String>, String> {
    analyse(sql, dialect, catalog).facts.map(|f| f.grain_issues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::lineage::sql_fields;

    fn cat() -> Catalog {
        Catalog::from_entries([
            "orders.id pk",
            "orders.customer_id -> customers.id",
            "orders.total_cents [cents]",
            "orders.created_at",
            "order_lines.order_id -> orders.id",
            "order_lines.unit_price_usd [USD]",
            "customers.id pk",
            "customers.status",
        ])
    }

    /// The shared analysis gives sql_fields' answer exactly, however much it collects:
    /// also for SQL with unknown columns in filters, lambdas and aggregate filters.
    #[test]
    fn fields_and_reasons_are_those_of_sql_fields() {
        let d = Dialect::from_name("duckdb").unwrap();
        for sql in [
            "SELECT o.id FROM orders o WHERE o.nope = 1 AND o.created_at >= '2026-01-01'",
            "SELECT sum(o.total_cents) FILTER (WHERE o.nope > 0) FROM orders o JOIN order_lines l ON l.order_id = o.id",
            "SELECT list_filter([1, 2], x -> x > 1) FROM orders WHERE total_cents > unit_price_usd",
            "SELECT * FROM customers c WHERE c.status IN ('a', 'b') AND zz IS NULL",
            "INSERT INTO orders VALUES (1)",
            "",
            "SELEC",
        ] {
            let a = analyse(sql, &d, &cat());
            assert_eq!(a.fields, sql_fields(sql, &d, &cat()), "{sql}");
        }
        let failed = analyse("SELEC", &d, &cat());
        assert!(failed.facts.unwrap_err().starts_with("cannot parse"));
        let fan = analyse(
            "SELECT sum(o.total_cents) FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE o.created_at < '2026-02-01'",
            &d,
            &cat(),
        )
        .facts
        .unwrap();
        assert_eq!(fan.grain_issues.len(), 1);
        assert_eq!(fan.time_filters[0].field, "orders.created_at");
    }
}

#[cfg(test)]
mod shape_tests {
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
