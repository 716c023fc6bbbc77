//! Does a query's filter apply a governed predicate? Both are reduced to conjunctions of
//! atoms over resolved columns, then each governed conjunct must be implied by the
//! query's filters.
//!
//! The atoms are `sql::normal`'s. A conjunct the query touches only in ways we cannot
//! decide makes the answer `unsure`, never a guess.
//!
//! What "applies" means, per governed conjunct (the table of cases is in
//! queries/metrics/definition_match.sql): a set of states (`IN`, `=`) must be the same set
//! in the query (`status = 'open'` does not apply "open ticket = status in (open,
//! pending)": it undercounts); a range must be the same range (the governed conjuncts on
//! one column merged: `amount = 20000` does not apply `amount BETWEEN 10000 AND 50000`);
//! an exclusion (`NOT IN`, `<>`) is applied by excluding the same states or more, or by
//! keeping only states outside them (`plan = 'pro'` applies `plan <> 'trial'`: an
//! exclusion is a constraint, not a membership); a null check must be implied; anything
//! else must appear in the same normalized form. Other conjuncts of the query (a region, a
//! window) are free.

use std::cmp::Ordering;

use datafusion::sql::sqlparser::ast::Ident;
use datafusion::sql::sqlparser::parser::Parser;

use super::analysis::{Analysis, analyse};
use super::normal::tighter;
pub use super::normal::{Atom, Bound, Lit, conjuncts, is_constant, to_atom};
use super::{Catalog, Dialect};

/// The answer of `predicate_match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Match,
    Mismatch,
    Unsure,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::Mismatch => "mismatch",
            Verdict::Unsure => "unsure",
        }
    }
}

/// Does `sql` filter by `governed` (a SQL boolean expression)? With the reason.
pub fn predicate_match(
    sql: &str,
    governed: &str,
    dialect: &Dialect,
    catalog: &Catalog,
) -> (Verdict, String) {
    match governed_atoms(governed, dialect) {
        Ok(g) => verdict(&analyse(sql, dialect, catalog), &g),
        Err(reason) => (Verdict::Unsure, reason),
    }
}

/// The governed predicate's conjuncts as atoms, the ranges on one column merged; its
/// columns are named as the catalog names them.
pub fn governed_atoms(governed: &str, dialect: &Dialect) -> Result<Vec<Atom>, String> {
    let pred = Parser::new(dialect.parser.as_ref())
        .try_with_sql(governed)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| format!("cannot parse the governed predicate: {e}"))?;
    let mut resolve_governed = |parts: &[Ident]| -> Option<String> {
        let written = parts
            .iter()
            .map(|p| p.value.to_lowercase())
            .collect::<Vec<_>>()
            .join(".");
        Some(written)
    };
    let atoms: Vec<Atom> = conjuncts(&pred)
        .into_iter()
        .map(|c| to_atom(c, &mut resolve_governed))
        .collect();
    Ok(merge_ranges(atoms))
}

/// Whether an analysed query applies the governed atoms (`governed_atoms`), and why.
pub fn verdict(query: &Analysis, governed: &[Atom]) -> (Verdict, String) {
    let facts = match &query.facts {
        Ok(f) => f,
        Err(reason) => return (Verdict::Unsure, reason.clone()),
    };
    let used: Vec<&str> = query.fields.fields.iter().map(String::as_str).collect();
    let mut verdict = Verdict::Match;
    let mut reasons = Vec::new();
    for p in governed {
        let (v, why) = implied(p, &facts.filters, &used);
        if v != Verdict::Match {
            reasons.push(why);
        }
        verdict = match (verdict, v) {
            (_, Verdict::Mismatch) | (Verdict::Mismatch, _) => Verdict::Mismatch,
            (_, Verdict::Unsure) | (Verdict::Unsure, _) => Verdict::Unsure,
            _ => Verdict::Match,
        };
    }
    let reason = match verdict {
        Verdict::Match => "the query's filters imply the governed predicate".to_string(),
        _ => reasons.join("; "),
    };
    (verdict, reason)
}

/// Whether a query column is the governed column: equal, or one is the other with more
/// qualifiers (`analytics.customers.x` and `customers.x`).
fn same_col(governed: &str, query: &str) -> bool {
    let (g, q) = (governed.to_lowercase(), query.to_lowercase());
    g == q || q.ends_with(&format!(".{g}")) || g.ends_with(&format!(".{q}"))
}

fn implied(p: &Atom, filters: &[Atom], used: &[&str]) -> (Verdict, String) {
    let pcols = p.cols();
    let on_col: Vec<&Atom> = filters
        .iter()
        .filter(|q| {
            q.cols()
                .iter()
                .any(|qc| pcols.iter().any(|pc| same_col(pc, qc)))
        })
        .collect();
    let holds = match p {
        // A value set is the meaning of a term: the query must use the same set on that
        // column (a narrower set undercounts, a wider one overcounts), whatever else it
        // filters on.
        Atom::In {
            col,
            values,
            negated,
        } => on_col.iter().any(|q| match q {
            Atom::In {
                col: qc,
                values: qv,
                negated: qn,
            } => {
                same_col(col, qc)
                    && match (*negated, *qn) {
                        (false, false) => qv == values,
                        // Excluding states: excluding the same or more, or keeping only
                        // states outside them, applies it.
                        (true, true) => qv.is_superset(values),
                        (true, false) => qv.is_disjoint(values),
                        (false, true) => false,
                    }
            }
            _ => false,
        }),
        // A range is a membership too: the query's bounds on the column must be the
        // governed bounds (a narrower range undercounts, a wider one overcounts).
        Atom::Range { col, lo, hi } => {
            let (qlo, qhi) = query_range(col, &on_col);
            same_bound(lo.as_ref(), qlo.as_ref()) && same_bound(hi.as_ref(), qhi.as_ref())
        }
        Atom::Null { col, negated: true } => on_col.iter().any(|q| match q {
            Atom::Null { negated, .. } => *negated,
            // Any comparison or IN list rejects NULL.
            Atom::In {
                col: qc,
                negated: false,
                ..
            }
            | Atom::Range { col: qc, .. } => same_col(col, qc),
            _ => false,
        }),
        Atom::Null {
            col,
            negated: false,
        } => on_col
            .iter()
            .any(|q| matches!(q, Atom::Null { col: qc, negated: false } if same_col(col, qc))),
        Atom::Or(_) | Atom::Other { .. } => on_col.contains(&p),
    };
    let name = pcols.join(", ");
    if holds {
        return (Verdict::Match, String::new());
    }
    if on_col.is_empty() {
        if used.iter().any(|u| pcols.iter().any(|pc| same_col(pc, u))) {
            return (
                Verdict::Unsure,
                format!("{name} is read but not filtered on in WHERE/ON/HAVING"),
            );
        }
        return (
            Verdict::Mismatch,
            format!("the query does not filter on {name}"),
        );
    }
    let decidable = !matches!(p, Atom::Or(_) | Atom::Other { .. })
        && on_col.iter().all(|q| match q {
            Atom::In { values, .. } => !values.iter().any(|v| matches!(v, Lit::Expr(_))),
            Atom::Range { lo, hi, .. } => ![lo, hi]
                .iter()
                .any(|b| matches!(b, Some((Lit::Expr(_), _)))),
            Atom::Null { .. } => true,
            _ => false,
        });
    if decidable {
        (
            Verdict::Mismatch,
            format!("the filter on {name} is not the governed one"),
        )
    } else {
        (
            Verdict::Unsure,
            format!("cannot decide whether the filter on {name} is the governed one"),
        )
    }
}

/// The tightest bounds the query's atoms put on a column.
fn query_range(col: &str, atoms: &[&Atom]) -> (Option<Bound>, Option<Bound>) {
    let mut lo: Option<Bound> = None;
    let mut hi: Option<Bound> = None;
    for a in atoms {
        let (alo, ahi) = match a {
            Atom::Range { col: qc, lo, hi } if same_col(col, qc) => (lo.clone(), hi.clone()),
            Atom::In {
                col: qc,
                values,
                negated: false,
            } if same_col(col, qc) && !values.is_empty() => {
                let min = values.iter().next().cloned().map(|v| (v, true));
                let max = values.iter().next_back().cloned().map(|v| (v, true));
                (min, max)
            }
            _ => continue,
        };
        lo = tighter(lo, alo, true);
        hi = tighter(hi, ahi, false);
    }
    (lo, hi)
}

/// Whether the query's bound `q` is the governed bound `p` (the same value, both
/// inclusive or both exclusive; both absent).
fn same_bound(p: Option<&Bound>, q: Option<&Bound>) -> bool {
    match (p, q) {
        (None, None) => true,
        (Some((pv, pincl)), Some((qv, qincl))) => {
            qv.compare(pv) == Some(Ordering::Equal) && pincl == qincl
        }
        _ => false,
    }
}

/// The governed predicate's range conjuncts on one column as one range (`a >= 1 AND a <=
/// 5` is `a BETWEEN 1 AND 5`), so it is compared with the query's range as a whole.
fn merge_ranges(atoms: Vec<Atom>) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    for a in atoms {
        if let Atom::Range { col, lo, hi } = &a
            && let Some(Atom::Range {
                lo: olo, hi: ohi, ..
            }) = out
                .iter_mut()
                .find(|o| matches!(o, Atom::Range { col: c, .. } if same_col(c, col)))
        {
            *olo = tighter(olo.take(), lo.clone(), true);
            *ohi = tighter(ohi.take(), hi.clone(), false);
            continue;
        }
        out.push(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sql: &str, pred: &str) -> Verdict {
        let d = Dialect::from_name("postgres").unwrap();
        let cat = Catalog::from_entries([
            "customers.id",
            "customers.subscription_status",
            "customers.sales_region",
            "customers.is_active",
            "customers.region_code",
            "orders.id",
            "orders.customer_id",
            "orders.amount",
            "orders.created_at",
        ]);
        predicate_match(sql, pred, &d, &cat).0
    }

    const ACTIVE: &str = "customers.subscription_status IN ('ACTIVE', 'PAUSED_BILLING')";

    #[test]
    fn normal_forms_match() {
        use Verdict::*;
        for sql in [
            "SELECT count(*) FROM customers WHERE subscription_status IN ('PAUSED_BILLING', 'ACTIVE')",
            "SELECT count(*) FROM customers c WHERE (c.subscription_status = 'ACTIVE' OR c.SUBSCRIPTION_STATUS = 'PAUSED_BILLING')",
            "SELECT count(*) FROM customers c WHERE c.sales_region = 'EMEA' AND ((subscription_status IN ('ACTIVE', 'PAUSED_BILLING')))",
            "SELECT count(*) FROM customers WHERE 'ACTIVE' = subscription_status OR 'PAUSED_BILLING' = subscription_status",
            "WITH a AS (SELECT * FROM customers WHERE subscription_status IN ('ACTIVE','PAUSED_BILLING')) SELECT count(*) FROM a",
            "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id AND c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING')",
            "SELECT count(*) FILTER (WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING')) FROM customers",
        ] {
            assert_eq!(check(sql, ACTIVE), Match, "{sql}");
        }
        assert_eq!(
            check(
                "SELECT 1 FROM orders WHERE amount BETWEEN 10 AND 20.0",
                "orders.amount >= 10 AND orders.amount <= 20"
            ),
            Match
        );
        assert_eq!(
            check(
                "SELECT 1 FROM orders WHERE created_at >= DATE '2026-04-01' AND created_at < '2026-07-01'::date",
                "orders.created_at >= '2026-04-01' AND orders.created_at < '2026-07-01'"
            ),
            Match
        );
        assert_eq!(
            check(
                "SELECT 1 FROM customers WHERE NOT (subscription_status IN ('TRIAL', 'CANCELLED'))",
                "customers.subscription_status NOT IN ('CANCELLED', 'TRIAL')"
            ),
            Match
        );
    }

    #[test]
    fn mismatches_and_unsure() {
        use Verdict::*;
        // The seed's Server A: a look-alike column instead of the governed one.
        assert_eq!(
            check(
                "SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at < '2026-07-01'",
                ACTIVE
            ),
            Mismatch
        );
        assert_eq!(
            check(
                "SELECT count(*) FROM customers WHERE subscription_status = 'TRIAL'",
                ACTIVE
            ),
            Mismatch
        );
        assert_eq!(
            check(
                "SELECT count(*) FROM customers WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING', 'TRIAL')",
                ACTIVE
            ),
            Mismatch
        );
        assert_eq!(
            check(
                "SELECT 1 FROM orders WHERE amount > 5",
                "orders.amount > 10"
            ),
            Mismatch
        );
        // Equivalence, not implication: a narrower range, a point inside, a wider one.
        for sql in [
            "SELECT 1 FROM orders WHERE 5 < amount AND amount < 7",
            "SELECT 1 FROM orders WHERE amount = 5",
            "SELECT 1 FROM orders WHERE amount >= 0",
            "SELECT 1 FROM orders WHERE amount BETWEEN 0 AND 20",
        ] {
            assert_eq!(
                check(sql, "orders.amount BETWEEN 0 AND 10"),
                Mismatch,
                "{sql}"
            );
        }
        assert_eq!(
            check(
                "SELECT sum(CASE WHEN subscription_status = 'ACTIVE' THEN 1 END) FROM customers",
                ACTIVE
            ),
            Unsure
        );
        assert_eq!(
            check(
                "SELECT count(*) FROM customers WHERE lower(subscription_status) = 'active'",
                ACTIVE
            ),
            Unsure
        );
        assert_eq!(check("SELEC nonsense", ACTIVE), Unsure);
        assert_eq!(
            check("SELECT 1", "customers.subscription_status IN ("),
            Unsure
        );
    }
}
