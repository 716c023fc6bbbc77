//! The normal form of a filter: conjuncts reduced to atoms over resolved columns, shared by
//! lineage (which filters a query applies), predicate matching and the policy check.
//!
//! `IN` lists and OR chains of equalities on one column are one value set; `BETWEEN` and
//! two bounds are one range; comparisons are flipped so the column is on the left; `NOT`
//! is pushed into the atom; parentheses vanish; identifiers are resolved through aliases
//! and compared without case; literals compare by value (`1` = `1.0`, `DATE '2026-04-01'`
//! = `'2026-04-01'`). What cannot be reduced is kept as normalized text.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Ident, UnaryOperator, Value, VisitMut, VisitorMut,
};

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
    pub(crate) fn compare(&self, other: &Lit) -> Option<Ordering> {
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

    pub(crate) fn cols(&self) -> Vec<&str> {
        match self {
            Atom::Or(parts) => parts.iter().flat_map(|a| a.cols()).collect(),
            Atom::Other { cols, .. } => cols.iter().map(String::as_str).collect(),
            a => a.col().into_iter().collect(),
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
fn column_parts(e: &Expr) -> Option<&[Ident]> {
    match strip(e) {
        Expr::Identifier(id) => Some(std::slice::from_ref(id)),
        Expr::CompoundIdentifier(ids) => Some(ids),
        Expr::Cast { expr, .. } => column_parts(expr),
        _ => None,
    }
}

type Resolve<'r> = dyn FnMut(&[Ident]) -> Option<String> + 'r;

/// Reduces one conjunct to an atom; `resolve` names a column (None: not exactly one).
pub fn to_atom(e: &Expr, resolve: &mut Resolve) -> Atom {
    let e = strip(e);
    let col = |x: &Expr, resolve: &mut Resolve| column_parts(x).and_then(&mut *resolve);
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
                Expr::Identifier(id) if is_date_part(id) => {}
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
    // Two columns compared (a join's `l.order_id = o.id`, the commonest atom that is no
    // value set): the text `other_copied` prints, without copying the expression.
    let is_column = |x: &Expr| matches!(x, Expr::Identifier(_) | Expr::CompoundIdentifier(_));
    if let Expr::BinaryOp { left, op, right } = e
        && is_column(left)
        && is_column(right)
    {
        let mut cols = Vec::new();
        let mut side = |x: &Expr| match column_parts(x).and_then(&mut *resolve) {
            Some(c) => {
                cols.push(c.clone());
                c
            }
            None => x.to_string(),
        };
        let (l, r) = (side(left), side(right));
        return Atom::Other {
            text: format!("{l} {op} {r}").to_lowercase(),
            cols,
        };
    }
    other_copied(e, resolve)
}

/// `other` for any expression: a copy with its columns and literals rewritten, printed.
fn other_copied(e: &Expr, resolve: &mut Resolve) -> Atom {
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
                if let Some(c) = (self.resolve)(parts) {
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

/// Date parts some dialects write as bare words (`DATEADD(day, 1, d)`).
const DATE_PARTS: &[&str] = &[
    "year",
    "years",
    "quarter",
    "month",
    "months",
    "week",
    "weeks",
    "day",
    "days",
    "dayofweek",
    "dayofyear",
    "hour",
    "hours",
    "minute",
    "minutes",
    "second",
    "seconds",
    "millisecond",
    "microsecond",
    "epoch",
    "isoweek",
    "isoyear",
    "yy",
    "mm",
    "dd",
    "hh",
    "mi",
    "ss",
    "dow",
    "doy",
];

/// A bare, unquoted date-part word (`day`, `MONTH`).
pub fn is_date_part(id: &Ident) -> bool {
    // Asked of every identifier in a filter's constants: ASCII words without lowering a copy.
    id.quote_style.is_none()
        && if id.value.is_ascii() {
            DATE_PARTS.iter().any(|p| id.value.eq_ignore_ascii_case(p))
        } else {
            DATE_PARTS.contains(&id.value.to_lowercase().as_str())
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::Dialect;
    use datafusion::sql::sqlparser::parser::Parser;

    /// The two-column shortcut prints what the copy does: resolved or not, quoted or not,
    /// any comparison.
    #[test]
    fn two_columns_print_as_the_copy_does() {
        let d = Dialect::from_name("postgres").unwrap();
        let mut resolve = |parts: &[Ident]| match parts.last().map(|p| p.value.as_str()) {
            Some("nope") => None,
            Some(last) => Some(format!("Sales.{last}")),
            None => None,
        };
        for sql in [
            "l.order_id = o.id",
            "a <> \"B\".\"Cé\"",
            "x.nope >= y",
            "nope < \"Quoted Name\"",
            "a.b.c = d",
            "t.Ünïcode != u.ß",
            "a IS DISTINCT FROM b",
            "a || b",
        ] {
            let e = Parser::new(d.parser.as_ref())
                .try_with_sql(sql)
                .and_then(|mut p| p.parse_expr())
                .unwrap();
            assert_eq!(
                other(&e, &mut resolve),
                other_copied(&e, &mut resolve),
                "{sql}"
            );
        }
    }
}
