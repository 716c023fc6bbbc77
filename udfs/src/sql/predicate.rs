//! Does a query's filter apply a governed predicate? Both are reduced to conjunctions of
//! atoms over resolved columns, then each governed conjunct must be implied by the
//! query's filters.
//!
//! Normal forms: `IN` lists and OR chains of equalities on one column are one value set;
//! `BETWEEN` and two bounds are one range; comparisons are flipped so the column is on the
//! left; `NOT` is pushed into the atom; parentheses vanish; identifiers are resolved
//! through aliases and compared without case; literals compare by value (`1` = `1.0`,
//! `DATE '2026-04-01'` = `'2026-04-01'`). What cannot be reduced is compared as
//! normalized text, and a conjunct the query touches only in ways we cannot decide makes
//! the answer `unsure`, never a guess.
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
use std::collections::BTreeSet;
use std::fmt;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Ident, UnaryOperator, Value, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::parser::Parser;

use super::lineage::Analyzer;
use super::{Catalog, Dialect};

/// A literal, compared by value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lit {
    /// A number in canonical decimal form.
    Num(String),
    Str(String),
    Bool(bool),
    /// A constant expression that is not a literal (`current_date - interval '7 days'`),
    /// as normalized text: it compares with nothing.
    Expr(String),
}

impl Lit {
    fn compare(&self, other: &Lit) -> Option<Ordering> {
        match (self, other) {
            (Lit::Num(a), Lit::Num(b)) => {
                a.parse::<f64>().ok()?.partial_cmp(&b.parse::<f64>().ok()?)
            }
            (Lit::Str(a), Lit::Str(b)) => Some(a.cmp(b)),
            (Lit::Bool(a), Lit::Bool(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Lit::Num(n) => write!(f, "{n}"),
            Lit::Str(s) => write!(f, "'{s}'"),
            Lit::Bool(b) => write!(f, "{b}"),
            Lit::Expr(e) => write!(f, "{e}"),
        }
    }
}

/// One bound of a range: the value and whether it is included.
pub type Bound = (Lit, bool);

/// One conjunct of a filter.
#[derive(Debug, Clone, PartialEq)]
pub enum Atom {
    /// `col IN (values)`, or `NOT IN` when negated.
    In {
        col: String,
        values: BTreeSet<Lit>,
        negated: bool,
    },
    Range {
        col: String,
        lo: Option<Bound>,
        hi: Option<Bound>,
    },
    /// `col IS NULL`, or `IS NOT NULL` when negated.
    Null { col: String, negated: bool },
    /// A disjunction that is not one value set.
    Or(Vec<Atom>),
    /// Anything else, as normalized text; `cols` are the columns it reads.
    Other { text: String, cols: Vec<String> },
}

impl Atom {
    fn col(&self) -> Option<&str> {
        match self {
            Atom::In { col, .. } | Atom::Range { col, .. } | Atom::Null { col, .. } => Some(col),
            _ => None,
        }
    }

    fn cols(&self) -> Vec<String> {
        match self {
            Atom::Or(parts) => parts.iter().flat_map(|a| a.cols()).collect(),
            Atom::Other { cols, .. } => cols.clone(),
            a => a.col().map(|c| vec![c.to_string()]).unwrap_or_default(),
        }
    }
}

/// `a AND b AND c` -> [a, b, c], looking through parentheses.
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Nested(inner) => conjuncts(inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        other => vec![other],
    }
}

fn disjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Nested(inner) => disjuncts(inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            let mut v = disjuncts(left);
            v.extend(disjuncts(right));
            v
        }
        other => vec![other],
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => strip(inner),
        other => other,
    }
}

/// A literal, looking through casts and typed strings (`DATE '…'`, `'…'::date`).
fn literal(e: &Expr) -> Option<Lit> {
    match strip(e) {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Some(Lit::Num(canonical_number(n))),
            Value::Boolean(b) => Some(Lit::Bool(*b)),
            Value::Null => None,
            other => other.clone().into_string().map(Lit::Str),
        },
        Expr::TypedString(t) => t.value.value.clone().into_string().map(Lit::Str),
        Expr::Cast { expr, .. } => literal(expr),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Lit::Num(n) => Some(Lit::Num(canonical_number(&format!("-{n}")))),
            _ => None,
        },
        _ => None,
    }
}

fn canonical_number(n: &str) -> String {
    match n.parse::<f64>() {
        Ok(f) if f.is_finite() => {
            let s = format!("{f}");
            if s == "-0" { "0".into() } else { s }
        }
        _ => n.to_string(),
    }
}

/// The column an expression is, if it is one (through parentheses and casts).
fn column_parts(e: &Expr) -> Option<Vec<Ident>> {
    match strip(e) {
        Expr::Identifier(id) => Some(vec![id.clone()]),
        Expr::CompoundIdentifier(ids) => Some(ids.clone()),
        Expr::Cast { expr, .. } => column_parts(expr),
        _ => None,
    }
}

type Resolve<'r> = dyn FnMut(&[Ident]) -> Option<String> + 'r;

/// Reduces one conjunct to an atom; `resolve` names a column (None: not exactly one).
pub fn to_atom(e: &Expr, resolve: &mut Resolve) -> Atom {
    let e = strip(e);
    let col = |x: &Expr, resolve: &mut Resolve| column_parts(x).and_then(|p| resolve(&p));
    match e {
        Expr::BinaryOp {
            op: BinaryOperator::Or,
            ..
        } => {
            let parts: Vec<Atom> = disjuncts(e)
                .into_iter()
                .map(|d| to_atom(d, resolve))
                .collect();
            // x = 1 OR x = 2 OR x IN (3) is one value set.
            let first = parts.first().and_then(|a| a.col()).map(str::to_string);
            if let Some(c) = first
                && parts
                    .iter()
                    .all(|a| matches!(a, Atom::In { col, negated: false, .. } if *col == c))
            {
                let values = parts
                    .into_iter()
                    .flat_map(|a| match a {
                        Atom::In { values, .. } => values,
                        _ => BTreeSet::new(),
                    })
                    .collect();
                return Atom::In {
                    col: c,
                    values,
                    negated: false,
                };
            }
            Atom::Or(parts)
        }
        Expr::BinaryOp { left, op, right } => {
            let constant = |x: &Expr| {
                literal(x)
                    .or_else(|| is_constant(x).then(|| Lit::Expr(x.to_string().to_lowercase())))
            };
            let (c, lit, op) = match (
                col(left, resolve),
                constant(right),
                col(right, resolve),
                constant(left),
            ) {
                (Some(c), Some(l), _, _) => (c, l, op.clone()),
                (_, _, Some(c), Some(l)) => match flip(op) {
                    Some(f) => (c, l, f),
                    None => return other(e, resolve),
                },
                _ => return other(e, resolve),
            };
            match op {
                BinaryOperator::Eq => Atom::In {
                    col: c,
                    values: BTreeSet::from([lit]),
                    negated: false,
                },
                BinaryOperator::NotEq => Atom::In {
                    col: c,
                    values: BTreeSet::from([lit]),
                    negated: true,
                },
                BinaryOperator::Gt => range(c, Some((lit, false)), None),
                BinaryOperator::GtEq => range(c, Some((lit, true)), None),
                BinaryOperator::Lt => range(c, None, Some((lit, false))),
                BinaryOperator::LtEq => range(c, None, Some((lit, true))),
                _ => other(e, resolve),
            }
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let values: Option<BTreeSet<Lit>> = list.iter().map(literal).collect();
            match (col(expr, resolve), values) {
                (Some(c), Some(values)) => Atom::In {
                    col: c,
                    values,
                    negated: *negated,
                },
                _ => other(e, resolve),
            }
        }
        Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } => match (col(expr, resolve), literal(low), literal(high)) {
            (Some(c), Some(lo), Some(hi)) => range(c, Some((lo, true)), Some((hi, true))),
            _ => other(e, resolve),
        },
        Expr::IsNull(x) | Expr::IsNotNull(x) => match col(x, resolve) {
            Some(c) => Atom::Null {
                col: c,
                negated: matches!(e, Expr::IsNotNull(_)),
            },
            None => other(e, resolve),
        },
        Expr::IsTrue(x) | Expr::IsFalse(x) => match col(x, resolve) {
            Some(c) => Atom::In {
                col: c,
                values: BTreeSet::from([Lit::Bool(matches!(e, Expr::IsTrue(_)))]),
                negated: false,
            },
            None => other(e, resolve),
        },
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => match col(e, resolve) {
            // A bare boolean column: `WHERE is_active`.
            Some(c) => Atom::In {
                col: c,
                values: BTreeSet::from([Lit::Bool(true)]),
                negated: false,
            },
            None => other(e, resolve),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => match to_atom(expr, resolve) {
            Atom::In {
                col,
                values,
                negated,
            } => Atom::In {
                col,
                values,
                negated: !negated,
            },
            Atom::Null { col, negated } => Atom::Null {
                col,
                negated: !negated,
            },
            Atom::Range {
                col,
                lo: Some((v, incl)),
                hi: None,
            } => range(col, None, Some((v, !incl))),
            Atom::Range {
                col,
                lo: None,
                hi: Some((v, incl)),
            } => range(col, Some((v, !incl)), None),
            _ => other(e, resolve),
        },
        _ => other(e, resolve),
    }
}

/// An expression without column references (date parts written as bare words aside).
pub fn is_constant(e: &Expr) -> bool {
    struct Cols(bool);
    impl datafusion::sql::sqlparser::ast::Visitor for Cols {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> std::ops::ControlFlow<()> {
            match e {
                Expr::Identifier(id) if super::lineage::is_date_part(id) => {}
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Subquery(_) => {
                    self.0 = true;
                    return std::ops::ControlFlow::Break(());
                }
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut c = Cols(false);
    let _ = datafusion::sql::sqlparser::ast::Visit::visit(e, &mut c);
    !c.0 && !matches!(e, Expr::Value(_))
}

fn range(col: String, lo: Option<Bound>, hi: Option<Bound>) -> Atom {
    Atom::Range { col, lo, hi }
}

fn flip(op: &BinaryOperator) -> Option<BinaryOperator> {
    Some(match op {
        BinaryOperator::Eq => BinaryOperator::Eq,
        BinaryOperator::NotEq => BinaryOperator::NotEq,
        BinaryOperator::Lt => BinaryOperator::Gt,
        BinaryOperator::LtEq => BinaryOperator::GtEq,
        BinaryOperator::Gt => BinaryOperator::Lt,
        BinaryOperator::GtEq => BinaryOperator::LtEq,
        _ => return None,
    })
}

/// Normalized text of an expression: columns replaced by their resolved names, literals
/// by their canonical form, lower case.
fn other(e: &Expr, resolve: &mut Resolve) -> Atom {
    struct Norm<'r, 'q> {
        resolve: &'r mut Resolve<'q>,
        cols: Vec<String>,
    }
    impl VisitorMut for Norm<'_, '_> {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> std::ops::ControlFlow<()> {
            if let Some(parts) = column_parts(e)
                && matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
            {
                if let Some(c) = (self.resolve)(&parts) {
                    self.cols.push(c.clone());
                    *e = Expr::Identifier(Ident::new(c));
                }
            } else if let Some(l) = literal(e)
                && !matches!(e, Expr::Value(_))
            {
                *e = Expr::Value(Value::SingleQuotedString(l.to_string()).into());
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut copy = e.clone();
    let mut n = Norm {
        resolve,
        cols: Vec::new(),
    };
    let _ = copy.visit(&mut n);
    let cols = n.cols;
    Atom::Other {
        text: copy.to_string().to_lowercase(),
        cols,
    }
}

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
    let pred = match Parser::new(dialect.parser.as_ref())
        .try_with_sql(governed)
        .and_then(|mut p| p.parse_expr())
    {
        Ok(p) => p,
        Err(e) => {
            return (
                Verdict::Unsure,
                format!("cannot parse the governed predicate: {e}"),
            );
        }
    };
    let statements = match dialect.parse(sql) {
        Ok(s) => s,
        Err(reason) => return (Verdict::Unsure, reason),
    };
    let mut a = Analyzer::new(dialect, catalog);
    a.filters = Some(Vec::new());
    for stmt in &statements {
        if let datafusion::sql::sqlparser::ast::Statement::Query(q) = stmt {
            a.query(q, None);
        }
    }
    let used: Vec<String> = a.used().iter().cloned().collect();
    let filters = a.filters.take().unwrap_or_default();
    // The governed predicate's columns are named as the catalog names them.
    let mut resolve_governed = |parts: &[Ident]| -> Option<String> {
        let written = parts
            .iter()
            .map(|p| p.value.to_lowercase())
            .collect::<Vec<_>>()
            .join(".");
        Some(written)
    };
    let mut verdict = Verdict::Match;
    let mut reasons = Vec::new();
    let atoms: Vec<Atom> = conjuncts(&pred)
        .into_iter()
        .map(|c| to_atom(c, &mut resolve_governed))
        .collect();
    for p in merge_ranges(atoms) {
        let (v, why) = implied(&p, &filters, &used);
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

fn implied(p: &Atom, filters: &[Atom], used: &[String]) -> (Verdict, String) {
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

pub(crate) fn tighter(a: Option<Bound>, b: Option<Bound>, lower: bool) -> Option<Bound> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => match a.0.compare(&b.0) {
            Some(Ordering::Equal) => Some((a.0, a.1 && b.1)),
            Some(Ordering::Greater) => Some(if lower { a } else { b }),
            Some(Ordering::Less) => Some(if lower { b } else { a }),
            None => Some(a),
        },
    }
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
