//! Which base columns a query reads: every column reference in every clause, resolved
//! through aliases, CTEs, derived tables and set operations to the catalog columns behind
//! it.
//!
//! Rules that always hold:
//! - A column that comes from a CTE or derived table counts as the base columns behind it.
//! - `*` and `t.*` count every column they expand to; expanding needs the catalog.
//! - A name that cannot be resolved exactly (unknown table, unknown or ambiguous column)
//!   is reported as a reason, never guessed; what did resolve is still returned.
//! - Without a catalog, tables are taken as written (lower-cased unless quoted) and a bare
//!   column is only resolved when one table is in scope.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Distinct, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident,
    JoinConstraint, JoinOperator, NamedWindowExpr, ObjectName, ObjectNamePart, OrderByKind, Query,
    Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr, Statement, TableAlias,
    TableFactor, TableWithJoins, Value, Visit, Visitor, WildcardAdditionalOptions,
};

use super::normal::{Atom, conjuncts, is_date_part, to_atom};
use super::{Catalog, Dialect};

/// The base columns a value or output column comes from.
pub type Lineage = BTreeSet<String>;

/// Output columns of a relation or query, by name, with their lineage.
type Columns = Vec<(String, Lineage)>;

/// What `sql_fields` reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields {
    pub fields: BTreeSet<String>,
    /// The fields the query's logic reads: filters (WHERE, JOIN ON/USING, HAVING,
    /// QUALIFY, FILTER), grouping and aggregate arguments. A column only shown (a plain
    /// projection, a star, ORDER BY) is in `fields` but not here.
    pub logic: BTreeSet<String>,
    pub reasons: Vec<String>,
}

/// Columns read by the statements of `sql` (queries; other statements are a reason).
pub fn sql_fields(sql: &str, dialect: &Dialect, catalog: &Catalog) -> Fields {
    let statements = match dialect.parse(sql) {
        Ok(s) => s,
        Err(reason) => {
            return Fields {
                reasons: vec![reason],
                ..Default::default()
            };
        }
    };
    let mut a = Analyzer::new(dialect, catalog);
    a.statements(&statements);
    a.finish()
}

/// One relation in a FROM clause.
#[derive(Debug, Clone)]
struct Rel {
    /// The name it is referred to by: its alias, or the table's own name.
    alias: Option<Ident>,
    /// For a base table referred to by its own name: the schema written, if any.
    schema: Option<Ident>,
    kind: RelKind,
}

#[derive(Debug, Clone)]
enum RelKind {
    /// A catalog table.
    Table(usize),
    /// A table the catalog does not list (only when there is no catalog): any column
    /// resolves to `table.column` as written.
    Open(String),
    /// A CTE, derived table or VALUES: these output columns.
    Derived(Vec<(String, Lineage)>),
    /// A table function or UNNEST: any column resolves to what its arguments read.
    Opaque(Lineage),
}

#[derive(Debug, Default)]
pub(crate) struct Scope<'p> {
    rels: Vec<Rel>,
    /// Columns merged by USING / NATURAL: a bare reference means both sides.
    merged: Vec<(String, Lineage)>,
    /// SELECT output aliases, for ORDER BY / GROUP BY / HAVING and dialects that allow
    /// aliases in WHERE.
    outputs: Vec<(String, Lineage)>,
    parent: Option<&'p Scope<'p>>,
}

enum Found {
    One(Lineage),
    Ambiguous(Vec<String>),
    None,
}

pub(crate) struct Analyzer<'a> {
    dialect: &'a Dialect,
    catalog: &'a Catalog,
    /// CTE frames, innermost last.
    ctes: Vec<Vec<(String, Columns)>>,
    used: Lineage,
    /// Fields read by filters, grouping and aggregates (see `Fields::logic`).
    logic: Lineage,
    reasons: Vec<String>,
    /// When set, every filter (WHERE, JOIN ON, HAVING, QUALIFY, FILTER (WHERE …)) is also
    /// collected here as atoms over resolved columns, for `predicate_match`.
    pub(crate) filters: Option<Vec<Atom>>,
    /// When set, the shape of every SELECT (join equalities, aggregates, unit clashes) is
    /// collected here, for the grain checks.
    pub(crate) shapes: Option<Vec<SelectShape>>,
    /// Shapes of the SELECTs being analyzed, innermost last.
    open_shapes: Vec<SelectShape>,
}

/// What the grain checks need to know of one SELECT.
#[derive(Debug, Clone, Default)]
pub(crate) struct SelectShape {
    /// `a = b` between two columns in ON or WHERE, as resolved fields.
    pub equalities: Vec<(String, String)>,
    /// Aggregate calls: (function, DISTINCT?, the fields its arguments read).
    pub aggregates: Vec<(String, bool, Lineage)>,
    /// Arithmetic or comparison between amounts of different units.
    pub unit_clashes: Vec<String>,
}

/// Aggregate functions (lowercase) whose arguments are the measure a query computes.
const AGGREGATES: &[&str] = &[
    "sum",
    "avg",
    "mean",
    "count",
    "count_if",
    "countif",
    "min",
    "max",
    "median",
    "mode",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "percentile_cont",
    "percentile_disc",
    "approx_count_distinct",
    "approx_distinct",
    "approx_percentile_cont",
    "approx_median",
    "bool_and",
    "bool_or",
    "every",
    "any_value",
    "array_agg",
    "string_agg",
    "group_concat",
    "listagg",
    "sum_if",
    "sumif",
    "avg_if",
    "total",
];

impl<'a> Analyzer<'a> {
    pub fn new(dialect: &'a Dialect, catalog: &'a Catalog) -> Self {
        Self {
            dialect,
            catalog,
            ctes: Vec::new(),
            used: Lineage::new(),
            logic: Lineage::new(),
            reasons: Vec::new(),
            filters: None,
            shapes: None,
            open_shapes: Vec::new(),
        }
    }

    /// Records a filter's conjuncts as atoms (only when collecting filters), and its
    /// column equalities into the SELECT's shape (only when collecting shapes).
    fn filter(&mut self, e: &Expr, scope: &Scope) {
        self.filter_with(e, scope, true);
    }

    /// `equalities`: false for an aggregate's FILTER (WHERE …), which joins nothing.
    /// The columns were resolved (and any reason given) by the expression walk already,
    /// so reasons from resolving them again here are dropped: the fields and reasons of
    /// an analysis are the same whatever it collects.
    fn filter_with(&mut self, e: &Expr, scope: &Scope, equalities: bool) {
        let reasons = self.reasons.len();
        self.collect_filter(e, scope, equalities);
        self.reasons.truncate(reasons);
    }

    fn collect_filter(&mut self, e: &Expr, scope: &Scope, equalities: bool) {
        if equalities && self.shapes.is_some() {
            for c in conjuncts(e) {
                if let Expr::BinaryOp {
                    left,
                    op: datafusion::sql::sqlparser::ast::BinaryOperator::Eq,
                    right,
                } = c
                    && let (Some(l), Some(r)) =
                        (self.field_of(left, scope), self.field_of(right, scope))
                    && let Some(shape) = self.open_shapes.last_mut()
                {
                    shape.equalities.push((l, r));
                }
            }
        }
        if self.filters.is_none() {
            return;
        }
        let mut atoms = Vec::new();
        for c in conjuncts(e) {
            let atom = to_atom(c, &mut |parts| {
                let l = self.resolve(scope, parts, &[]);
                (l.len() == 1).then(|| l.into_iter().next().expect("one"))
            });
            atoms.push(atom);
        }
        self.filters.as_mut().expect("checked").extend(atoms);
    }

    pub fn finish(mut self) -> Fields {
        self.reasons.sort();
        self.reasons.dedup();
        Fields {
            fields: self.used,
            logic: self.logic,
            reasons: self.reasons,
        }
    }

    pub(crate) fn reason(&mut self, r: String) {
        self.reasons.push(r);
    }

    fn use_all(&mut self, l: &Lineage) {
        add_all(&mut self.used, l);
    }

    /// An expression of the query's logic (a filter, a join condition, a grouping key).
    fn logic_expr(&mut self, e: &Expr, scope: &Scope) -> Lineage {
        let l = self.expr(e, scope);
        add_all(&mut self.logic, &l);
        l
    }

    /// Walks the queries of a SQL text; any other statement, or none, is a reason.
    pub(crate) fn statements(&mut self, statements: &[Statement]) {
        for stmt in statements {
            match stmt {
                Statement::Query(q) => {
                    self.query(q, None);
                }
                other => self.reason(format!(
                    "not a query: {}",
                    other.to_string().split_whitespace().next().unwrap_or("")
                )),
            }
        }
        if statements.is_empty() {
            self.reason("no statement".into());
        }
    }

    /// Output columns of a query.
    pub fn query(&mut self, q: &Query, parent: Option<&Scope>) -> Vec<(String, Lineage)> {
        self.ctes.push(Vec::new());
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let cols = self.cte(cte, with.recursive, parent);
                let name = self.dialect.key(&cte.alias.name);
                self.ctes.last_mut().expect("pushed").push((name, cols));
            }
        }
        let cols = match q.body.as_ref() {
            SetExpr::Select(s) => self.select(s, parent, q.order_by.as_ref().map(|o| &o.kind)),
            body => {
                let cols = self.set_expr(body, parent);
                if let Some(order) = &q.order_by {
                    // ORDER BY after a set operation names output columns.
                    let scope = Scope {
                        outputs: cols.clone(),
                        rels: vec![Rel {
                            alias: None,
                            schema: None,
                            kind: RelKind::Derived(cols.clone()),
                        }],
                        parent,
                        ..Default::default()
                    };
                    self.order_by(&order.kind, &scope);
                }
                cols
            }
        };
        self.ctes.pop();
        cols
    }

    fn cte(
        &mut self,
        cte: &datafusion::sql::sqlparser::ast::Cte,
        recursive: bool,
        parent: Option<&Scope>,
    ) -> Vec<(String, Lineage)> {
        let name = self.dialect.key(&cte.alias.name);
        let self_referencing = recursive && {
            let mut f = RelationNames::default();
            let _ = cte.query.visit(&mut f);
            f.names.iter().any(|n| n == &name)
        };
        let cols = if self_referencing {
            // Anchor first, then the recursive term with the CTE bound to the anchor's
            // columns; each output column reads what either side reads.
            match cte.query.body.as_ref() {
                SetExpr::SetOperation { left, right, .. } => {
                    let anchor = self.set_expr(left, parent);
                    let anchor = rename(anchor, &cte.alias, self.dialect);
                    self.ctes
                        .last_mut()
                        .expect("pushed")
                        .push((name.clone(), anchor.clone()));
                    let step = self.set_expr(right, parent);
                    self.ctes.last_mut().expect("pushed").pop();
                    merge_by_position(anchor, step)
                }
                _ => {
                    self.reason(format!("recursive CTE {name} without UNION"));
                    self.query(&cte.query, parent)
                }
            }
        } else {
            self.query(&cte.query, parent)
        };
        rename(cols, &cte.alias, self.dialect)
    }

    fn set_expr(&mut self, e: &SetExpr, parent: Option<&Scope>) -> Vec<(String, Lineage)> {
        match e {
            SetExpr::Select(s) => self.select(s, parent, None),
            SetExpr::Query(q) => self.query(q, parent),
            SetExpr::SetOperation { left, right, .. } => {
                let l = self.set_expr(left, parent);
                let r = self.set_expr(right, parent);
                merge_by_position(l, r)
            }
            SetExpr::Values(v) => {
                let scope = Scope {
                    parent,
                    ..Default::default()
                };
                let width = v.rows.first().map(|r| r.len()).unwrap_or(0);
                let mut cols: Vec<(String, Lineage)> = (1..=width)
                    .map(|i| (format!("column{i}"), Lineage::new()))
                    .collect();
                for row in &v.rows {
                    for (i, x) in row.iter().enumerate() {
                        let l = self.expr(x, &scope);
                        if let Some(c) = cols.get_mut(i) {
                            c.1.extend(l);
                        }
                    }
                }
                cols
            }
            SetExpr::Table(t) => {
                let name = t.table_name.clone().unwrap_or_default();
                let ident = Ident::new(name);
                let rel = self.table_rel(&[ident], None);
                let scope = Scope {
                    rels: vec![rel],
                    parent,
                    ..Default::default()
                };
                self.star(&scope, None, None)
            }
            other => {
                self.reason(format!(
                    "not a query: {}",
                    other.to_string().split_whitespace().next().unwrap_or("")
                ));
                Vec::new()
            }
        }
    }

    /// The one field a column expression is, if it is one.
    fn field_of(&mut self, e: &Expr, scope: &Scope) -> Option<String> {
        let parts: &[Ident] = match e {
            Expr::Identifier(id) => std::slice::from_ref(id),
            Expr::CompoundIdentifier(ids) => ids,
            Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => {
                return self.field_of(inner, scope);
            }
            _ => return None,
        };
        let l = self.resolve(scope, parts, &[]);
        (l.len() == 1).then(|| l.into_iter().next().expect("one"))
    }

    /// The unit of an amount expression: a column's unit, kept through aggregates and
    /// sums of the same unit.
    fn unit_of(&mut self, e: &Expr, scope: &Scope) -> Option<(String, String)> {
        match e {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                let f = self.field_of(e, scope)?;
                let unit = self.catalog.info(&f)?.unit.clone()?;
                Some((unit, f))
            }
            Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => self.unit_of(inner, scope),
            Expr::Function(f) => {
                const KEEP_UNIT: &[&str] = &[
                    "sum",
                    "avg",
                    "min",
                    "max",
                    "coalesce",
                    "round",
                    "abs",
                    "any_value",
                ];
                function_named(&f.name, KEEP_UNIT)?;
                let FunctionArguments::List(list) = &f.args else {
                    return None;
                };
                match list.args.first()? {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(a)) => self.unit_of(a, scope),
                    _ => None,
                }
            }
            Expr::BinaryOp { left, op, right } if is_additive(op) => {
                let (l, r) = (self.unit_of(left, scope)?, self.unit_of(right, scope)?);
                (l.0.eq_ignore_ascii_case(&r.0)).then_some(l)
            }
            _ => None,
        }
    }

    fn select(
        &mut self,
        s: &Select,
        parent: Option<&Scope>,
        order_by: Option<&OrderByKind>,
    ) -> Vec<(String, Lineage)> {
        if self.shapes.is_some() {
            self.open_shapes.push(SelectShape::default());
        }
        let out = self.select_inner(s, parent, order_by);
        if let Some(shape) = self.open_shapes.pop()
            && let Some(shapes) = self.shapes.as_mut()
        {
            shapes.push(shape);
        }
        out
    }

    fn select_inner(
        &mut self,
        s: &Select,
        parent: Option<&Scope>,
        order_by: Option<&OrderByKind>,
    ) -> Vec<(String, Lineage)> {
        let mut scope = Scope {
            parent,
            ..Default::default()
        };
        for twj in &s.from {
            self.join_tree(twj, &mut scope);
        }
        for lv in &s.lateral_views {
            let l = self.expr(&lv.lateral_view, &scope);
            scope.rels.push(Rel {
                alias: lv.lateral_view_name.0.last().and_then(ident_part),
                schema: None,
                kind: RelKind::Opaque(l),
            });
        }
        // SELECT list.
        let mut outputs: Vec<(String, Lineage)> = Vec::new();
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    let l = self.expr(e, &scope);
                    outputs.push((output_name(e, self.dialect), l));
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    let l = self.expr(expr, &scope);
                    outputs.push((self.dialect.key(alias), l));
                }
                SelectItem::ExprWithAliases { expr, aliases } => {
                    let l = self.expr(expr, &scope);
                    for a in aliases {
                        outputs.push((self.dialect.key(a), l.clone()));
                    }
                }
                SelectItem::Wildcard(opts) => {
                    let cols = self.star(&scope, None, Some(opts));
                    outputs.extend(cols);
                }
                SelectItem::QualifiedWildcard(kind, opts) => match kind {
                    SelectItemQualifiedWildcardKind::ObjectName(name) => {
                        let cols = self.star(&scope, Some(name), Some(opts));
                        outputs.extend(cols);
                    }
                    SelectItemQualifiedWildcardKind::Expr(e) => {
                        let l = self.expr(e, &scope);
                        outputs.push(("?column?".into(), l));
                    }
                },
            }
        }
        scope.outputs = outputs.clone();
        if let Some(Distinct::On(exprs)) = &s.distinct {
            for e in exprs {
                self.expr(e, &scope);
            }
        }
        if let Some(w) = &s.prewhere {
            self.logic_expr(w, &scope);
        }
        if let Some(w) = &s.selection {
            self.logic_expr(w, &scope);
            self.filter(w, &scope);
        }
        match &s.group_by {
            GroupByExpr::All(_) => {
                // GROUP BY ALL groups by every output that is no aggregate: we cannot
                // tell those apart here, so every output counts as logic.
                for (_, l) in &scope.outputs {
                    add_all(&mut self.logic, l);
                }
            }
            GroupByExpr::Expressions(exprs, _) => {
                for e in exprs {
                    let l = self.output_ref(e, &scope);
                    self.logic.extend(l);
                }
            }
        }
        for e in s.cluster_by.iter().chain(&s.distribute_by) {
            self.expr(e, &scope);
        }
        for o in &s.sort_by {
            self.output_ref(&o.expr, &scope);
        }
        if let Some(h) = &s.having {
            self.logic_expr(h, &scope);
            self.filter(h, &scope);
        }
        for w in &s.named_window {
            if let NamedWindowExpr::WindowSpec(spec) = &w.1 {
                ExprCollector::collect(self, &scope, spec);
            }
        }
        if let Some(q) = &s.qualify {
            self.logic_expr(q, &scope);
            self.filter(q, &scope);
        }
        if let Some(order) = order_by {
            self.order_by(order, &scope);
        }
        outputs
    }

    fn order_by(&mut self, order: &OrderByKind, scope: &Scope) {
        if let OrderByKind::Expressions(exprs) = order {
            for o in exprs {
                self.output_ref(&o.expr, scope);
            }
        }
    }

    /// A GROUP BY / ORDER BY item: a position, an output alias, or an expression; returns
    /// the fields it stands for.
    fn output_ref(&mut self, e: &Expr, scope: &Scope) -> Lineage {
        match e {
            Expr::Value(v) if matches!(v.value, Value::Number(_, _)) => {
                // A position: the columns were counted with the SELECT list.
                let Value::Number(n, _) = &v.value else {
                    unreachable!("matched above")
                };
                n.parse::<usize>()
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .and_then(|i| scope.outputs.get(i))
                    .map(|(_, l)| l.clone())
                    .unwrap_or_default()
            }
            Expr::Identifier(id)
                if scope
                    .outputs
                    .iter()
                    .any(|(n, _)| self.dialect.matches(id, n)) =>
            {
                // The alias's columns were counted with the SELECT list.
                scope
                    .outputs
                    .iter()
                    .find(|(n, _)| self.dialect.matches(id, n))
                    .map(|(_, l)| l.clone())
                    .unwrap_or_default()
            }
            _ => self.expr(e, scope),
        }
    }

    fn join_tree(&mut self, twj: &TableWithJoins, scope: &mut Scope) {
        self.table_factor(&twj.relation, scope);
        for join in &twj.joins {
            let left = scope.rels.len();
            self.table_factor(&join.relation, scope);
            let constraint = match &join.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::Left(c)
                | JoinOperator::LeftOuter(c)
                | JoinOperator::Right(c)
                | JoinOperator::RightOuter(c)
                | JoinOperator::FullOuter(c)
                | JoinOperator::CrossJoin(c)
                | JoinOperator::Semi(c)
                | JoinOperator::LeftSemi(c)
                | JoinOperator::RightSemi(c)
                | JoinOperator::Anti(c)
                | JoinOperator::LeftAnti(c)
                | JoinOperator::RightAnti(c)
                | JoinOperator::StraightJoin(c) => Some(c),
                JoinOperator::AsOf {
                    match_condition,
                    constraint,
                } => {
                    self.logic_expr(match_condition, scope);
                    Some(constraint)
                }
                _ => None,
            };
            match constraint {
                Some(JoinConstraint::On(e)) => {
                    self.logic_expr(e, scope);
                    self.filter(e, scope);
                }
                Some(JoinConstraint::Using(names)) => {
                    for n in names {
                        let Some(id) = n.0.last().and_then(ident_part) else {
                            continue;
                        };
                        let (lrels, rrels) = scope.rels.split_at(left);
                        let mut l = self.column_in(lrels, &id, "USING");
                        l.extend(self.column_in(rrels, &id, "USING"));
                        self.use_all(&l);
                        add_all(&mut self.logic, &l);
                        scope.merged.push((self.dialect.key(&id), l));
                    }
                }
                Some(JoinConstraint::Natural) => {
                    let (lrels, rrels) = scope.rels.split_at(left);
                    let lcols = self.known_columns(lrels);
                    let rcols = self.known_columns(rrels);
                    match (lcols, rcols) {
                        (Some(lc), Some(rc)) => {
                            for (name, ll) in &lc {
                                if let Some((_, rl)) = rc.iter().find(|(n, _)| n == name) {
                                    let mut l = ll.clone();
                                    l.extend(rl.iter().cloned());
                                    self.use_all(&l);
                                    add_all(&mut self.logic, &l);
                                    scope.merged.push((name.clone(), l));
                                }
                            }
                        }
                        _ => self
                            .reason("NATURAL JOIN over a table the catalog does not list".into()),
                    }
                }
                Some(JoinConstraint::None) | None => {}
            }
        }
    }

    fn table_factor(&mut self, tf: &TableFactor, scope: &mut Scope) {
        match tf {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                let idents: Vec<Ident> = name.0.iter().filter_map(ident_part).collect();
                if let Some(args) = args {
                    // A table-valued function: columns read its arguments.
                    let l = self.expr_list(args.args.iter(), scope);
                    scope.rels.push(opaque(alias, l, self.dialect));
                    return;
                }
                let rel = self.table_rel(&idents, alias.as_ref());
                scope.rels.push(rel);
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                let cols = if *lateral {
                    self.query(subquery, Some(scope))
                } else {
                    self.query(subquery, scope.parent)
                };
                let cols = match alias {
                    Some(a) => rename(cols, a, self.dialect),
                    None => cols,
                };
                scope.rels.push(Rel {
                    alias: alias.as_ref().map(|a| a.name.clone()),
                    schema: None,
                    kind: RelKind::Derived(cols),
                });
            }
            TableFactor::TableFunction { expr, alias } => {
                let l = self.expr(expr, scope);
                scope.rels.push(opaque(alias, l, self.dialect));
            }
            TableFactor::Function { args, alias, .. } => {
                let l = self.expr_list(args.iter(), scope);
                scope.rels.push(opaque(alias, l, self.dialect));
            }
            TableFactor::UNNEST {
                alias, array_exprs, ..
            } => {
                let mut l = Lineage::new();
                for e in array_exprs {
                    l.extend(self.expr(e, scope));
                }
                scope.rels.push(opaque(alias, l, self.dialect));
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let before = scope.rels.len();
                self.join_tree(table_with_joins, scope);
                if let Some(a) = alias {
                    let inner: Vec<Rel> = scope.rels.drain(before..).collect();
                    let cols = self.known_columns(&inner).unwrap_or_default();
                    scope.rels.push(Rel {
                        alias: Some(a.name.clone()),
                        schema: None,
                        kind: RelKind::Derived(cols),
                    });
                }
            }
            other => {
                let kind = other.to_string();
                let word = kind.split_whitespace().next().unwrap_or("").to_string();
                self.reason(format!("unsupported FROM item: {word}"));
                let l = ExprCollector::collect(self, scope, other);
                scope.rels.push(Rel {
                    alias: None,
                    schema: None,
                    kind: RelKind::Opaque(l),
                });
            }
        }
    }

    /// A named table: a CTE in scope, else a catalog table.
    fn table_rel(&mut self, idents: &[Ident], alias: Option<&TableAlias>) -> Rel {
        let Some(last) = idents.last().cloned() else {
            return Rel {
                alias: None,
                schema: None,
                kind: RelKind::Opaque(Lineage::new()),
            };
        };
        let alias_ident = alias.map(|a| a.name.clone());
        let schema = if alias.is_none() && idents.len() > 1 {
            idents.get(idents.len() - 2).cloned()
        } else {
            None
        };
        if idents.len() == 1 {
            let key = self.dialect.key(&last);
            let cte = self
                .ctes
                .iter()
                .rev()
                .flat_map(|frame| frame.iter().rev())
                .find(|(n, _)| n == &key)
                .map(|(_, cols)| cols.clone());
            if let Some(cols) = cte {
                let cols = match alias {
                    Some(a) => rename(cols, a, self.dialect),
                    None => cols,
                };
                return Rel {
                    alias: Some(alias_ident.unwrap_or(last)),
                    schema: None,
                    kind: RelKind::Derived(cols),
                };
            }
        }
        let dialect = self.dialect;
        let written = || {
            idents
                .iter()
                .map(|i| dialect.key(i))
                .collect::<Vec<_>>()
                .join(".")
        };
        let kind = if self.catalog.is_empty() {
            RelKind::Open(written())
        } else {
            let found = self.catalog.find(self.dialect, idents);
            match found.as_slice() {
                [one] => RelKind::Table(*one),
                [] => {
                    let r = format!("unknown table {}", written());
                    self.reason(r);
                    RelKind::Opaque(Lineage::new())
                }
                _ => {
                    let r = format!("ambiguous table {}: in several schemas", written());
                    self.reason(r);
                    RelKind::Opaque(Lineage::new())
                }
            }
        };
        let rel = Rel {
            alias: Some(alias_ident.unwrap_or(last)),
            schema,
            kind,
        };
        match alias {
            Some(a) if !a.columns.is_empty() => {
                // `t AS x(a, b)` renames the table's columns by position.
                let cols = self.known_columns(std::slice::from_ref(&rel));
                match cols {
                    Some(cols) => Rel {
                        kind: RelKind::Derived(rename(cols, a, self.dialect)),
                        ..rel
                    },
                    None => rel,
                }
            }
            _ => rel,
        }
    }

    /// Every column of these relations with its lineage, when all are known.
    fn known_columns(&self, rels: &[Rel]) -> Option<Vec<(String, Lineage)>> {
        let mut out = Vec::new();
        for r in rels {
            match &r.kind {
                RelKind::Table(i) => {
                    for (c, entry) in &self.catalog.table(*i).columns {
                        out.push((c.to_lowercase(), Lineage::from([entry.clone()])));
                    }
                }
                RelKind::Derived(cols) => out.extend(cols.iter().cloned()),
                RelKind::Open(_) | RelKind::Opaque(_) => return None,
            }
        }
        Some(out)
    }

    /// `*` or `t.*`: every column, each counted as used.
    fn star(
        &mut self,
        scope: &Scope,
        qualifier: Option<&ObjectName>,
        opts: Option<&WildcardAdditionalOptions>,
    ) -> Vec<(String, Lineage)> {
        let rels: &[Rel] = match qualifier {
            None => &scope.rels,
            Some(name) => {
                let idents: Vec<Ident> = name.0.iter().filter_map(ident_part).collect();
                match self.find_rel(scope, &idents) {
                    Some(r) => std::slice::from_ref(r),
                    None => {
                        self.reason(format!("unknown table or alias {name} in {name}.*"));
                        return Vec::new();
                    }
                }
            }
        };
        let Some(mut cols) = self.known_columns(rels) else {
            let names: Vec<String> = rels
                .iter()
                .filter(|r| matches!(r.kind, RelKind::Open(_) | RelKind::Opaque(_)))
                .filter_map(|r| r.alias.as_ref().map(|a| a.value.clone()))
                .collect();
            self.reason(format!(
                "cannot expand * over {}: columns unknown",
                if names.is_empty() {
                    "a table function".to_string()
                } else {
                    names.join(", ")
                }
            ));
            return Vec::new();
        };
        if qualifier.is_none() && !scope.merged.is_empty() {
            // USING columns appear once.
            let mut seen = BTreeSet::new();
            cols.retain(|(n, _)| {
                !scope.merged.iter().any(|(m, _)| m == n) || seen.insert(n.clone())
            });
        }
        if let Some(opts) = opts {
            let mut excluded: Vec<Ident> = Vec::new();
            if let Some(ex) = &opts.opt_exclude {
                use datafusion::sql::sqlparser::ast::ExcludeSelectItem;
                let names = match ex {
                    ExcludeSelectItem::Single(n) => vec![n.clone()],
                    ExcludeSelectItem::Multiple(ns) => ns.clone(),
                };
                excluded.extend(names.iter().filter_map(|n| n.0.last().and_then(ident_part)));
            }
            if let Some(ex) = &opts.opt_except {
                excluded.push(ex.first_element.clone());
                excluded.extend(ex.additional_elements.iter().cloned());
            }
            cols.retain(|(n, _)| !excluded.iter().any(|e| self.dialect.matches(e, n)));
            if let Some(rep) = &opts.opt_replace {
                for item in &rep.items {
                    let l = self.expr(&item.expr, scope);
                    let key = self.dialect.key(&item.column_name);
                    if let Some(c) = cols.iter_mut().find(|(n, _)| *n == key) {
                        c.1 = l;
                    }
                }
            }
        }
        for (_, l) in &cols {
            self.use_all(l);
        }
        cols
    }

    fn expr_list<'e>(
        &mut self,
        args: impl Iterator<Item = &'e FunctionArg>,
        scope: &Scope,
    ) -> Lineage {
        let mut l = Lineage::new();
        for a in args {
            let arg = match a {
                FunctionArg::Named { arg, .. }
                | FunctionArg::ExprNamed { arg, .. }
                | FunctionArg::Unnamed(arg) => arg,
            };
            if let FunctionArgExpr::Expr(e) = arg {
                l.extend(self.expr(e, scope));
            }
        }
        l
    }

    /// Resolves every column an expression reads; returns their lineage.
    pub fn expr(&mut self, e: &Expr, scope: &Scope) -> Lineage {
        ExprCollector::collect(self, scope, e)
    }

    /// A relation by qualifier: `alias`, `table` or `schema.table`.
    fn find_rel<'r>(&self, scope: &'r Scope, q: &[Ident]) -> Option<&'r Rel> {
        let mut s = Some(scope);
        while let Some(sc) = s {
            for r in &sc.rels {
                let Some(alias) = &r.alias else { continue };
                let Some(last) = q.last() else { continue };
                if !self.dialect.matches(last, &alias.value) {
                    continue;
                }
                match q.len() {
                    1 => return Some(r),
                    _ => {
                        let schema_ok = match (&r.schema, &r.kind) {
                            (Some(s), _) => self.dialect.matches(&q[q.len() - 2], &s.value),
                            (None, RelKind::Table(i)) => self
                                .catalog
                                .table(*i)
                                .schema
                                .as_deref()
                                .is_some_and(|ts| self.dialect.matches(&q[q.len() - 2], ts)),
                            _ => false,
                        };
                        if schema_ok {
                            return Some(r);
                        }
                    }
                }
            }
            s = sc.parent;
        }
        None
    }

    /// A column looked up in the given relations (for USING).
    fn column_in(&mut self, rels: &[Rel], col: &Ident, what: &str) -> Lineage {
        let mut hits: Vec<Lineage> = rels.iter().filter_map(|r| self.column_of(r, col)).collect();
        match hits.len() {
            1 => hits.pop().expect("one"),
            0 => {
                self.reason(format!(
                    "unknown column {} in {what}",
                    self.dialect.key(col)
                ));
                Lineage::new()
            }
            _ => {
                self.reason(format!(
                    "ambiguous column {} in {what}",
                    self.dialect.key(col)
                ));
                Lineage::new()
            }
        }
    }

    /// The lineage of `col` in `r`, if `r` has it (an open or opaque relation has any).
    fn column_of(&self, r: &Rel, col: &Ident) -> Option<Lineage> {
        match &r.kind {
            RelKind::Table(i) => self
                .catalog
                .table(*i)
                .columns
                .iter()
                .find(|(c, _)| self.dialect.matches(col, c))
                .map(|(_, entry)| Lineage::from([entry.clone()])),
            RelKind::Derived(cols) => cols
                .iter()
                .find(|(c, _)| self.dialect.matches(col, c))
                .map(|(_, l)| l.clone()),
            RelKind::Open(t) => Some(Lineage::from([format!("{t}.{}", self.dialect.key(col))])),
            RelKind::Opaque(l) => Some(l.clone()),
        }
    }

    /// A bare column name: merged USING columns, then the one relation that has it, scope
    /// by scope outwards.
    fn bare(&self, scope: &Scope, col: &Ident) -> Found {
        let mut s = Some(scope);
        while let Some(sc) = s {
            if let Some((_, l)) = sc.merged.iter().find(|(n, _)| self.dialect.matches(col, n)) {
                return Found::One(l.clone());
            }
            let closed: Vec<(&Rel, Lineage)> = sc
                .rels
                .iter()
                .filter(|r| matches!(r.kind, RelKind::Table(_) | RelKind::Derived(_)))
                .filter_map(|r| self.column_of(r, col).map(|l| (r, l)))
                .collect();
            match closed.len() {
                1 => return Found::One(closed.into_iter().next().expect("one").1),
                0 => {}
                _ => {
                    return Found::Ambiguous(
                        closed
                            .iter()
                            .filter_map(|(r, _)| r.alias.as_ref().map(|a| a.value.clone()))
                            .collect(),
                    );
                }
            }
            let open: Vec<&Rel> = sc
                .rels
                .iter()
                .filter(|r| matches!(r.kind, RelKind::Open(_) | RelKind::Opaque(_)))
                .collect();
            match open.len() {
                0 => {}
                1 => return Found::One(self.column_of(open[0], col).expect("open")),
                _ => {
                    return Found::Ambiguous(
                        open.iter()
                            .filter_map(|r| r.alias.as_ref().map(|a| a.value.clone()))
                            .collect(),
                    );
                }
            }
            s = sc.parent;
        }
        Found::None
    }

    /// Resolves `a`, `t.a`, `s.t.a`, or `a.field…` (a struct column and its fields).
    fn resolve(&mut self, scope: &Scope, parts: &[Ident], in_lambda: &[String]) -> Lineage {
        let Some(first) = parts.first() else {
            return Lineage::new();
        };
        if parts.len() == 1 && in_lambda.iter().any(|p| self.dialect.matches(first, p)) {
            return Lineage::new();
        }
        // Longest qualifier first: schema.table.column, table.column.
        for q_len in (1..parts.len()).rev() {
            if let Some(rel) = self.find_rel(scope, &parts[..q_len]) {
                let col = &parts[q_len];
                return match self.column_of(rel, col) {
                    Some(l) => l,
                    None => {
                        let name = parts[..=q_len]
                            .iter()
                            .map(|p| p.value.as_str())
                            .collect::<Vec<_>>()
                            .join(".");
                        self.reason(format!("unknown column {name}"));
                        Lineage::new()
                    }
                };
            }
        }
        // A bare column (the rest, if any, are struct fields).
        match self.bare(scope, first) {
            Found::One(l) => l,
            Found::Ambiguous(rels) => {
                self.reason(format!(
                    "ambiguous column {}: could be in {}",
                    self.dialect.key(first),
                    rels.join(", ")
                ));
                Lineage::new()
            }
            Found::None => {
                let mut s = Some(scope);
                while let Some(sc) = s {
                    if let Some((_, l)) = sc
                        .outputs
                        .iter()
                        .find(|(n, _)| self.dialect.matches(first, n))
                    {
                        return l.clone();
                    }
                    s = sc.parent;
                }
                let key = self.dialect.key(first);
                if parts.len() == 1 && is_date_part(first) {
                    return Lineage::new();
                }
                // SQLite/MySQL: "USA" that names no column is the string 'USA'.
                if parts.len() == 1
                    && first.quote_style == Some('"')
                    && self.dialect.double_quoted_may_be_string()
                {
                    return Lineage::new();
                }
                if parts.len() > 1 {
                    let name = parts
                        .iter()
                        .map(|p| p.value.as_str())
                        .collect::<Vec<_>>()
                        .join(".");
                    self.reason(format!("unknown table or alias in {name}"));
                } else {
                    self.reason(format!("unknown column {key}"));
                }
                Lineage::new()
            }
        }
    }
}

/// Walks an expression: resolves each column reference in the current scope, and hands
/// each subquery (not its inside) to the analyzer with the current scope as parent.
struct ExprCollector<'x, 'a, 's> {
    an: &'x mut Analyzer<'a>,
    scope: &'x Scope<'s>,
    pass: Pass,
    depth: usize,
    /// Subqueries seen (outside other subqueries) by the first pass.
    subqueries: usize,
    lineage: Lineage,
    /// Named-argument names and the like: expressions that are not column references.
    skip: Vec<*const Expr>,
    lambda: Vec<String>,
    /// `FILTER (WHERE …)`s of aggregates seen by the first pass.
    agg_filters: usize,
}

/// What a walk of `ExprCollector` does. A visitor is lent each node only for its call, so
/// the aggregate filters and subqueries the first walk finds are found again by a walk
/// of their own and analysed in place, rather than copied.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    /// Resolve the columns; count the aggregate filters and subqueries.
    Columns,
    /// Collect each aggregate's `FILTER (WHERE …)` as a filter.
    AggFilters,
    /// Analyse each subquery with this scope as its parent.
    Subqueries,
}

impl<'x, 'a, 's> ExprCollector<'x, 'a, 's> {
    /// The lineage of what `node` reads: its columns, then the `FILTER (WHERE …)`s of its
    /// aggregates as filters, then its subqueries, in the order they are written.
    fn collect<N: Visit + ?Sized>(
        an: &'x mut Analyzer<'a>,
        scope: &'x Scope<'s>,
        node: &N,
    ) -> Lineage {
        let mut c = Self {
            an,
            scope,
            pass: Pass::Columns,
            depth: 0,
            subqueries: 0,
            lineage: Lineage::new(),
            skip: Vec::new(),
            lambda: Vec::new(),
            agg_filters: 0,
        };
        let _ = node.visit(&mut c);
        for (found, pass) in [
            (c.agg_filters, Pass::AggFilters),
            (c.subqueries, Pass::Subqueries),
        ] {
            if found > 0 {
                c.pass = pass;
                c.skip.clear();
                let _ = node.visit(&mut c);
            }
        }
        c.an.use_all(&c.lineage);
        c.lineage
    }
}

/// Named arguments' names (`f(x => 1)`) are not column references.
fn skip_named(f: &datafusion::sql::sqlparser::ast::Function, skip: &mut Vec<*const Expr>) {
    if let FunctionArguments::List(list) = &f.args {
        for a in &list.args {
            if let FunctionArg::ExprNamed { name, .. } = a {
                skip.push(name as *const Expr);
            }
        }
    }
}

impl Visitor for ExprCollector<'_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if self.depth == 0 {
            match self.pass {
                Pass::Columns => self.subqueries += 1,
                Pass::AggFilters => {}
                Pass::Subqueries => {
                    for (_, l) in self.an.query(q, Some(self.scope)) {
                        self.lineage.extend(l);
                    }
                }
            }
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.depth > 0 || self.skip.contains(&(e as *const Expr)) {
            return ControlFlow::Continue(());
        }
        if self.pass != Pass::Columns {
            if let Expr::Function(f) = e {
                if self.pass == Pass::AggFilters
                    && self.an.filters.is_some()
                    && let Some(filter) = &f.filter
                {
                    self.an.filter_with(filter, self.scope, false);
                }
                skip_named(f, &mut self.skip);
            }
            return ControlFlow::Continue(());
        }
        match e {
            Expr::Identifier(id) => {
                let l = self
                    .an
                    .resolve(self.scope, std::slice::from_ref(id), &self.lambda);
                self.lineage.extend(l);
            }
            Expr::CompoundIdentifier(ids) => {
                let l = self.an.resolve(self.scope, ids, &self.lambda);
                self.lineage.extend(l);
            }
            Expr::BinaryOp { left, op, right }
                if self.an.shapes.is_some() && (is_additive(op) || is_comparison(op)) =>
            {
                // Resolved again by the walk below: its reasons are the walk's.
                let reasons = self.an.reasons.len();
                let units = (
                    self.an.unit_of(left, self.scope),
                    self.an.unit_of(right, self.scope),
                );
                self.an.reasons.truncate(reasons);
                if let (Some(l), Some(r)) = units
                    && !l.0.eq_ignore_ascii_case(&r.0)
                    && let Some(shape) = self.an.open_shapes.last_mut()
                {
                    shape
                        .unit_clashes
                        .push(format!("{} [{}] {op} {} [{}]", l.1, l.0, r.1, r.0));
                }
            }
            Expr::Function(f) => {
                if let Some(name) = function_named(&f.name, AGGREGATES) {
                    // What an aggregate reads is the measure: the query's logic (and,
                    // for the grain checks, what sum/avg/count add up).
                    let args = match &f.args {
                        FunctionArguments::List(list) => {
                            self.an.expr_list(list.args.iter(), self.scope)
                        }
                        _ => Lineage::new(),
                    };
                    if self.an.shapes.is_some()
                        && ["sum", "avg", "count"].contains(&name)
                        && let FunctionArguments::List(list) = &f.args
                        && let Some(shape) = self.an.open_shapes.last_mut()
                    {
                        let distinct = matches!(
                            list.duplicate_treatment,
                            Some(datafusion::sql::sqlparser::ast::DuplicateTreatment::Distinct)
                        );
                        shape
                            .aggregates
                            .push((name.to_string(), distinct, args.clone()));
                    }
                    self.an.logic.extend(args);
                    if let Some(filter) = &f.filter {
                        let l = self.an.expr(filter, self.scope);
                        self.an.logic.extend(l);
                    }
                }
                if self.an.filters.is_some() && f.filter.is_some() {
                    self.agg_filters += 1;
                }
                skip_named(f, &mut self.skip);
            }
            Expr::Lambda(l) => {
                for p in l.params.iter() {
                    self.lambda.push(p.name.value.clone());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.depth == 0
            && self.pass == Pass::Columns
            && let Expr::Lambda(l) = e
        {
            for _ in l.params.iter() {
                self.lambda.pop();
            }
        }
        ControlFlow::Continue(())
    }
}

/// Names of relations a query refers to (to spot a recursive CTE's self-reference).
#[derive(Default)]
struct RelationNames {
    names: Vec<String>,
}

impl Visitor for RelationNames {
    type Break = ();
    fn pre_visit_relation(&mut self, r: &ObjectName) -> ControlFlow<()> {
        if let [one] = r.0.as_slice()
            && let Some(id) = one.as_ident()
        {
            self.names.push(id.value.to_lowercase());
            if id.quote_style.is_some() {
                self.names.push(id.value.clone());
            }
        }
        ControlFlow::Continue(())
    }
}

/// Which of `names` (lower case) a function's name is: one unquoted part that lowers to
/// it. The same answer as looking its printed, lowered name up in `names`, without
/// printing: this is asked of every function call of every query.
fn function_named(name: &ObjectName, names: &[&'static str]) -> Option<&'static str> {
    let [part] = name.0.as_slice() else {
        return None;
    };
    let id = part.as_ident().filter(|id| id.quote_style.is_none())?;
    if id.value.is_ascii() {
        names
            .iter()
            .copied()
            .find(|n| id.value.eq_ignore_ascii_case(n))
    } else {
        let lower = id.value.to_lowercase();
        names.iter().copied().find(|n| *n == lower)
    }
}

/// Adds `l` to `set`, copying only the names it does not hold yet (most are there).
fn add_all(set: &mut Lineage, l: &Lineage) {
    for f in l {
        if !set.contains(f) {
            set.insert(f.clone());
        }
    }
}

fn is_additive(op: &datafusion::sql::sqlparser::ast::BinaryOperator) -> bool {
    use datafusion::sql::sqlparser::ast::BinaryOperator::*;
    matches!(op, Plus | Minus)
}

fn is_comparison(op: &datafusion::sql::sqlparser::ast::BinaryOperator) -> bool {
    use datafusion::sql::sqlparser::ast::BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq)
}

fn ident_part(p: &ObjectNamePart) -> Option<Ident> {
    p.as_ident().cloned()
}

fn opaque(alias: &Option<TableAlias>, l: Lineage, d: &Dialect) -> Rel {
    match alias {
        Some(a) if !a.columns.is_empty() => Rel {
            alias: Some(a.name.clone()),
            schema: None,
            kind: RelKind::Derived(
                a.columns
                    .iter()
                    .map(|c| (d.key(&c.name), l.clone()))
                    .collect(),
            ),
        },
        _ => Rel {
            alias: alias.as_ref().map(|a| a.name.clone()),
            schema: None,
            kind: RelKind::Opaque(l),
        },
    }
}

/// Applies `AS x(a, b)` column names by position.
fn rename(
    mut cols: Vec<(String, Lineage)>,
    alias: &TableAlias,
    d: &Dialect,
) -> Vec<(String, Lineage)> {
    for (c, new) in cols.iter_mut().zip(&alias.columns) {
        c.0 = d.key(&new.name);
    }
    cols
}

fn merge_by_position(
    mut left: Vec<(String, Lineage)>,
    right: Vec<(String, Lineage)>,
) -> Vec<(String, Lineage)> {
    for (l, (_, r)) in left.iter_mut().zip(right) {
        l.1.extend(r);
    }
    left
}

/// The name a SELECT item without alias gets: a column's own name.
fn output_name(e: &Expr, d: &Dialect) -> String {
    match e {
        Expr::Identifier(id) => d.key(id),
        Expr::CompoundIdentifier(ids) => ids.last().map(|i| d.key(i)).unwrap_or_default(),
        _ => "?column?".into(),
    }
}
