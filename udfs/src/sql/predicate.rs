//! Does a query's filter apply a governed predicate? Both are reduced to conjunctions of
//! atoms over resolved columns, then each governed conjunct must be implied by the
//! query's filters.
//!
//! The atoms are `sql::normal`'s. A conjunct the query touches only in ways we cannot
//! decide makes the answer `unsure`, never a guess.
//!
//! What "applies" means (the table of cases is in queries/metrics/definition_match.sql):
//! the values a column may take are a set, and the query must admit exactly the governed
//! set. Each side's conjuncts on a column (`IN`, `=`, `<>`, `NOT IN`, ranges, `BETWEEN`)
//! are intersected into one set: a finite set of states, or a range with holes. Equal sets
//! match (`stage <> 'won' AND stage <> 'lost'` is `stage NOT IN ('won','lost')`); sets
//! that differ mismatch, narrower or wider (`status = 'open'` does not apply "open =
//! status IN (open, pending)", `amount BETWEEN 10000 AND 50000 AND amount <> 20000` does
//! not apply the range, and a narrower filter on an exclusion term undercounts it too);
//! a shape outside what the sets express (an OR of ranges, an expression) is unsure, with
//! its name. A null check must be implied; anything else must appear in the same
//! normalized form. Other conjuncts of the query (a region, a window) are free.

use std::cmp::Ordering;
use std::collections::BTreeSet;

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
        Ok(g) => verdict(&analyse(sql, dialect, catalog), &g, None),
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
/// `question`, when given, is the task's question without the term's own words: a query
/// that keeps only states of the governed set matches when the question names each of
/// them ("MRR on the enterprise plan" keeps `plan = 'enterprise'` of MRR's `plan <>
/// 'trial'`), whole words in any case (`has_term`).
pub fn verdict(query: &Analysis, governed: &[Atom], question: Option<&str>) -> (Verdict, String) {
    let facts = match &query.facts {
        Ok(f) => f,
        Err(reason) => return (Verdict::Unsure, reason.clone()),
    };
    let used: Vec<&str> = query.fields.fields.iter().map(String::as_str).collect();
    let mut verdict = Verdict::Match;
    let mut reasons = Vec::new();
    let mut by_set: Vec<&str> = Vec::new();
    for p in governed {
        let (v, why) = match p {
            Atom::In { col, .. } | Atom::Range { col, .. } => {
                if by_set.iter().any(|c| same_col(c, col)) {
                    continue;
                }
                by_set.push(col);
                let on: Vec<&Atom> = governed
                    .iter()
                    .filter(|a| {
                        matches!(a, Atom::In { col: c, .. } | Atom::Range { col: c, .. } if same_col(c, col))
                    })
                    .collect();
                same_set(col, &on, &facts.filters, &used, question)
            }
            _ => implied(p, &facts.filters, &used),
        };
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
    // ASCII names (nearly all) compared without lowering a copy of each: this runs for
    // every pair of a term's and a query's columns.
    if governed.is_ascii() && query.is_ascii() {
        let eq = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        return eq(governed, query)
            || qualifies(query, governed, eq)
            || qualifies(governed, query, eq);
    }
    let (g, q) = (governed.to_lowercase(), query.to_lowercase());
    let eq = |a: &str, b: &str| a == b;
    g == q || qualifies(&q, &g, eq) || qualifies(&g, &q, eq)
}

/// Whether `long` is `short` with a qualifier (`x.short`), names compared by `eq`. Without
/// `format!`: this runs for every pair of a term's and a query's columns
/// (benches/RESULTS.md).
fn qualifies(long: &str, short: &str, eq: impl Fn(&str, &str) -> bool) -> bool {
    long.len() > short.len()
        && long.is_char_boundary(long.len() - short.len())
        && long[..long.len() - short.len()].ends_with('.')
        && eq(&long[long.len() - short.len()..], short)
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

/// The values a column's conjuncts admit.
#[derive(Debug, Clone, PartialEq)]
enum Admits {
    /// These states only (`IN`, `=`).
    Only(BTreeSet<Lit>),
    /// A range (unbounded where None) with holes (`<>`, `NOT IN`).
    Span {
        lo: Option<Bound>,
        hi: Option<Bound>,
        holes: BTreeSet<Lit>,
    },
}

fn admits(a: &Atom) -> Option<Admits> {
    match a {
        Atom::In {
            values,
            negated: false,
            ..
        } => Some(Admits::Only(values.clone())),
        Atom::In {
            values,
            negated: true,
            ..
        } => Some(Admits::Span {
            lo: None,
            hi: None,
            holes: values.clone(),
        }),
        Atom::Range { lo, hi, .. } => Some(Admits::Span {
            lo: lo.clone(),
            hi: hi.clone(),
            holes: BTreeSet::new(),
        }),
        _ => None,
    }
}

/// Whether `v` lies within the bounds; None when it does not compare with them.
fn within(v: &Lit, lo: &Option<Bound>, hi: &Option<Bound>) -> Option<bool> {
    let above = match lo {
        None => true,
        Some((b, incl)) => match v.compare(b)? {
            Ordering::Greater => true,
            Ordering::Equal => *incl,
            Ordering::Less => false,
        },
    };
    let below = match hi {
        None => true,
        Some((b, incl)) => match v.compare(b)? {
            Ordering::Less => true,
            Ordering::Equal => *incl,
            Ordering::Greater => false,
        },
    };
    Some(above && below)
}

/// The intersection of two admitted sets, in normal form; None when a value does not
/// compare with a bound (a string against a number).
fn intersect(a: Admits, b: Admits) -> Option<Admits> {
    let keep = |values: BTreeSet<Lit>, other: &Admits| -> Option<BTreeSet<Lit>> {
        let mut out = BTreeSet::new();
        for v in values {
            let ok = match other {
                Admits::Only(o) => o.contains(&v),
                Admits::Span { lo, hi, holes } => within(&v, lo, hi)? && !holes.contains(&v),
            };
            if ok {
                out.insert(v);
            }
        }
        Some(out)
    };
    let out = match (a, b) {
        (Admits::Only(x), other) | (other, Admits::Only(x)) => Admits::Only(keep(x, &other)?),
        (
            Admits::Span { lo, hi, holes },
            Admits::Span {
                lo: lo2,
                hi: hi2,
                holes: holes2,
            },
        ) => Admits::Span {
            lo: tighter(lo, lo2, true),
            hi: tighter(hi, hi2, false),
            holes: holes.into_iter().chain(holes2).collect(),
        },
    };
    normal(out)
}

/// One spelling per set: holes outside the range dropped, a hole on an inclusive bound
/// made an exclusive bound, a one-point range a state.
fn normal(a: Admits) -> Option<Admits> {
    let Admits::Span {
        mut lo,
        mut hi,
        holes,
    } = a
    else {
        return Some(a);
    };
    let mut kept = BTreeSet::new();
    for h in holes {
        if !within(&h, &lo, &hi)? {
            continue;
        }
        match (&lo, &hi) {
            (Some((b, true)), _) if h.compare(b) == Some(Ordering::Equal) => {
                lo = Some((b.clone(), false));
            }
            (_, Some((b, true))) if h.compare(b) == Some(Ordering::Equal) => {
                hi = Some((b.clone(), false));
            }
            _ => {
                kept.insert(h);
            }
        }
    }
    if let (Some((l, li)), Some((h, hi_incl))) = (&lo, &hi) {
        match l.compare(h)? {
            Ordering::Greater => return Some(Admits::Only(BTreeSet::new())),
            Ordering::Equal if *li && *hi_incl => {
                return Some(Admits::Only([l.clone()].into_iter().collect()));
            }
            Ordering::Equal => return Some(Admits::Only(BTreeSet::new())),
            Ordering::Less => {}
        }
    }
    Some(Admits::Span {
        lo,
        hi,
        holes: kept,
    })
}

/// Whether two admitted sets are the same set; None when that cannot be told (a finite
/// set of integers against a bounded range of them: the column's type decides).
fn same_admits(a: &Admits, b: &Admits) -> Option<bool> {
    match (a, b) {
        (Admits::Only(x), Admits::Only(y)) => Some(x == y),
        (
            Admits::Span { lo, hi, holes },
            Admits::Span {
                lo: lo2,
                hi: hi2,
                holes: holes2,
            },
        ) => Some(
            same_bound(lo.as_ref(), lo2.as_ref())
                && same_bound(hi.as_ref(), hi2.as_ref())
                && holes == holes2,
        ),
        (Admits::Only(x), Admits::Span { lo, hi, holes })
        | (Admits::Span { lo, hi, holes }, Admits::Only(x)) => {
            // A range holds infinitely many values unless the column is an integer one:
            // then it may be exactly the listed integers, which only the type can tell.
            let int = |l: &Lit| match l {
                Lit::Num(n) => n.parse::<i64>().ok(),
                _ => None,
            };
            let (Some((l, li)), Some((h, hi_incl))) = (lo, hi) else {
                return Some(false);
            };
            let (Some(l), Some(h)) = (int(l), int(h)) else {
                return Some(false);
            };
            let (first, last) = (
                if *li { l } else { l + 1 },
                if *hi_incl { h } else { h - 1 },
            );
            if last - first > 10_000 {
                return Some(false);
            }
            let ints: BTreeSet<i64> = (first..=last)
                .filter(|i| !holes.iter().any(|v| int(v) == Some(*i)))
                .collect();
            let listed: Option<BTreeSet<i64>> = x.iter().map(int).collect();
            if listed.as_ref() == Some(&ints) {
                None
            } else {
                Some(false)
            }
        }
    }
}

/// Whether `q` is a non-empty finite set of states, all of them admitted by `g`.
fn narrower(q: &Admits, g: &Admits) -> bool {
    let Admits::Only(states) = q else {
        return false;
    };
    !states.is_empty()
        && states.iter().all(|v| match g {
            Admits::Only(o) => o.contains(v),
            Admits::Span { lo, hi, holes } => within(v, lo, hi) == Some(true) && !holes.contains(v),
        })
}

fn lit_text(l: &Lit) -> String {
    match l {
        Lit::Num(n) | Lit::Str(n) | Lit::Expr(n) => n.clone(),
        Lit::Bool(b) => b.to_string(),
    }
}

/// Whether the query admits on `col` exactly the values the governed conjuncts `on` do.
fn same_set(
    col: &str,
    on: &[&Atom],
    filters: &[Atom],
    used: &[&str],
    question: Option<&str>,
) -> (Verdict, String) {
    let q_on: Vec<&Atom> = filters
        .iter()
        .filter(|q| q.cols().iter().any(|qc| same_col(col, qc)))
        .collect();
    if q_on.is_empty() {
        if used.iter().any(|u| same_col(col, u)) {
            return (
                Verdict::Unsure,
                format!("{col} is read but not filtered on in WHERE/ON/HAVING"),
            );
        }
        return (
            Verdict::Mismatch,
            format!("the query does not filter on {col}"),
        );
    }
    let has_expr = |a: &Atom| match a {
        Atom::In { values, .. } => values.iter().any(|v| matches!(v, Lit::Expr(_))),
        Atom::Range { lo, hi, .. } => [lo, hi]
            .iter()
            .any(|b| matches!(b, Some((Lit::Expr(_), _)))),
        _ => false,
    };
    let fold = |atoms: &[&Atom]| -> Result<Admits, String> {
        let mut acc = Admits::Span {
            lo: None,
            hi: None,
            holes: BTreeSet::new(),
        };
        for a in atoms {
            match a {
                // Every comparison already rejects NULL.
                Atom::Null { negated: true, .. } => continue,
                Atom::Null { negated: false, .. } => {
                    return Err(format!("{col} is required to be NULL"));
                }
                _ if has_expr(a) => {
                    return Err(format!(
                        "cannot decide whether the filter on {col} is the governed one: it compares with an expression"
                    ));
                }
                _ => {}
            }
            let Some(x) = admits(a) else {
                return Err(format!(
                    "cannot decide whether the filter on {col} is the governed one: an OR of ranges or an expression on it is outside what the sets express"
                ));
            };
            acc = intersect(acc, x).ok_or_else(|| {
                format!("cannot decide whether the filter on {col} is the governed one: its values do not compare")
            })?;
        }
        Ok(acc)
    };
    let g = match fold(on) {
        Ok(g) => g,
        Err(why) => return (Verdict::Unsure, why),
    };
    let q = match fold(&q_on) {
        Ok(q) => q,
        Err(why) if why.ends_with("to be NULL") => {
            return (
                Verdict::Mismatch,
                format!("the filter on {col} is not the governed one: {why}"),
            );
        }
        Err(why) => return (Verdict::Unsure, why),
    };
    match same_admits(&g, &q) {
        Some(true) => (Verdict::Match, String::new()),
        // Some states of the governed set only: a mismatch, unless the question asks for
        // exactly those states.
        Some(false) => match &q {
            Admits::Only(states) if narrower(&q, &g) => {
                let names: Vec<String> = states.iter().map(lit_text).collect();
                let kept = format!(
                    "the filter on {col} is narrower than the governed one: it keeps only {}",
                    names
                        .iter()
                        .map(|n| format!("'{n}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let asked =
                    question.is_some_and(|q| names.iter().all(|n| crate::has_term::has_term(q, n)));
                if asked {
                    (
                        Verdict::Match,
                        format!("{kept}, which the question asks for"),
                    )
                } else {
                    (Verdict::Mismatch, kept)
                }
            }
            _ => (
                Verdict::Mismatch,
                format!("the filter on {col} is not the governed one: it admits other values"),
            ),
        },
        None => (
            Verdict::Unsure,
            format!(
                "cannot decide whether the filter on {col} is the governed one: a list of integers against a range of them depends on the column's type"
            ),
        ),
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

    /// The ASCII comparison agrees with lowering both names.
    #[test]
    fn same_col_as_lowered() {
        let lowered = |g: &str, q: &str| {
            let (g, q) = (g.to_lowercase(), q.to_lowercase());
            let qualifies = |long: &str, short: &str| {
                long.strip_suffix(short)
                    .is_some_and(|head| head.ends_with('.'))
            };
            g == q || qualifies(&q, &g) || qualifies(&g, &q)
        };
        let names = [
            "customers.id",
            "Customers.ID",
            "analytics.customers.id",
            "id",
            "xcustomers.id",
            "customers.idx",
            ".id",
            "",
            "analytics.Customers.Id",
            "Straße.id",
            "STRASSE.id",
        ];
        for g in names {
            for q in names {
                assert_eq!(same_col(g, q), lowered(g, q), "{g:?} / {q:?}");
            }
        }
        assert!(same_col("customers.id", "Analytics.CUSTOMERS.id"));
        assert!(!same_col("customers.id", "xcustomers.id"));
    }

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

    /// Issue #50's probes: equivalence as sets, not implication.
    #[test]
    fn sets_decide_equivalence() {
        use Verdict::*;
        let stage = "customers.subscription_status NOT IN ('won', 'lost')";
        for (sql, pred, want) in [
            // Narrower than the governed set, though every value is in it.
            (
                "SELECT 1 FROM customers WHERE subscription_status IN ('ACTIVE','PAUSED_BILLING') AND subscription_status <> 'ACTIVE'",
                ACTIVE,
                Mismatch,
            ),
            (
                "SELECT 1 FROM customers WHERE subscription_status IN ('ACTIVE','PAUSED_BILLING') AND subscription_status IN ('ACTIVE','TRIAL')",
                ACTIVE,
                Mismatch,
            ),
            (
                "SELECT 1 FROM orders WHERE amount BETWEEN 10000 AND 50000 AND amount <> 20000",
                "orders.amount BETWEEN 10000 AND 50000",
                Mismatch,
            ),
            // An exclusion term: a narrower filter undercounts it.
            (
                "SELECT 1 FROM customers WHERE subscription_status = 'negotiation'",
                stage,
                Mismatch,
            ),
            (
                "SELECT 1 FROM customers WHERE subscription_status NOT IN ('won','lost','stalled')",
                stage,
                Mismatch,
            ),
            // The same set spelled otherwise.
            (
                "SELECT 1 FROM customers WHERE subscription_status <> 'won' AND subscription_status <> 'lost'",
                stage,
                Match,
            ),
            (
                "SELECT 1 FROM customers WHERE NOT (subscription_status = 'won' OR subscription_status = 'lost')",
                stage,
                Match,
            ),
            (
                "SELECT 1 FROM orders WHERE amount >= 10000 AND amount <= 50000 AND amount <> 10000",
                "orders.amount > 10000 AND orders.amount <= 50000",
                Match,
            ),
            (
                "SELECT 1 FROM customers WHERE subscription_status IN ('ACTIVE','PAUSED_BILLING','TRIAL') AND subscription_status <> 'TRIAL'",
                ACTIVE,
                Match,
            ),
            // Integers listed against their range: the column's type decides.
            (
                "SELECT 1 FROM orders WHERE amount IN (1, 2, 3)",
                "orders.amount BETWEEN 1 AND 3",
                Unsure,
            ),
            (
                "SELECT 1 FROM orders WHERE amount IN (1, 3)",
                "orders.amount BETWEEN 1 AND 3",
                Mismatch,
            ),
        ] {
            assert_eq!(check(sql, pred), want, "{sql} vs {pred}");
        }
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
