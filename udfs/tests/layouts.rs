//! Every function reads its string arguments in any of Arrow's layouts (Utf8, LargeUtf8,
//! Utf8View) and takes NULL in any argument: its documented example gives the same
//! answer whichever layout its literals come in, and a NULL in place of each argument
//! is an answer (NULL or a value), never an error or a panic.

use std::ops::ControlFlow;

use datafusion::arrow::util::display::array_value_to_string;
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Statement, Value, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;

/// The values a query gives, row by row (column names left out: they spell the casts).
async fn run(ctx: &SessionContext, sql: &str) -> Result<Vec<Vec<String>>, String> {
    let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
    let batches = df.collect().await.map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for b in &batches {
        for r in 0..b.num_rows() {
            rows.push(
                b.columns()
                    .iter()
                    .map(|c| array_value_to_string(c, r).map_err(|e| e.to_string()))
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
    }
    Ok(rows)
}

fn parse(sql: &str) -> Statement {
    Parser::parse_sql(&GenericDialect {}, sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .remove(0)
}

/// Every string literal that is a value (not a struct field's name) as
/// `arrow_cast(literal, 'LAYOUT')`.
struct Cast(&'static str);

/// `arrow_cast(x, …)` back to `x`.
fn uncast(e: &mut Expr) {
    if let Expr::Function(f) = e
        && f.name.to_string() == "arrow_cast"
        && let FunctionArguments::List(list) = &f.args
        && let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(x))) = list.args.first()
    {
        *e = x.clone();
    }
}

impl VisitorMut for Cast {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        // Names: named_struct's even arguments, and a field or key in `x['name']`.
        if let Expr::Function(f) = e
            && f.name.to_string().eq_ignore_ascii_case("named_struct")
            && let FunctionArguments::List(list) = &mut f.args
        {
            for (k, a) in list.args.iter_mut().enumerate() {
                if let (0, FunctionArg::Unnamed(FunctionArgExpr::Expr(x))) = (k % 2, a) {
                    uncast(x);
                }
            }
        }
        if let Expr::CompoundFieldAccess { access_chain, .. } = e {
            for a in access_chain {
                if let datafusion::sql::sqlparser::ast::AccessExpr::Subscript(
                    datafusion::sql::sqlparser::ast::Subscript::Index { index },
                ) = a
                {
                    uncast(index);
                }
            }
        }
        if let Expr::Value(v) = e
            && matches!(v.value, Value::SingleQuotedString(_))
        {
            let lit = e.to_string();
            *e = Parser::new(&GenericDialect {})
                .try_with_sql(&format!("arrow_cast({lit}, '{}')", self.0))
                .and_then(|mut p| p.parse_expr())
                .expect("a cast parses");
        }
        ControlFlow::Continue(())
    }
}

/// The `i`th argument of every call to `name` replaced by NULL; whether there was one.
struct Null<'a> {
    name: &'a str,
    i: usize,
    found: bool,
}

impl VisitorMut for Null<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e
            && f.name.to_string().eq_ignore_ascii_case(self.name)
            && let FunctionArguments::List(list) = &mut f.args
            && let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))) =
                list.args.get_mut(self.i)
        {
            *arg = Expr::value(Value::Null);
            self.found = true;
        }
        ControlFlow::Continue(())
    }
}

#[tokio::test]
async fn every_function_reads_every_string_layout_and_nulls() {
    let mut ctx = SessionContext::new();
    groundcheck_udfs::register_all(&mut ctx).unwrap();
    let mut checked = 0;
    for f in groundcheck_udfs::scalar_functions() {
        let name = f.name().to_string();
        let doc = f
            .documentation()
            .unwrap_or_else(|| panic!("{name} has no documentation"));
        let example = doc
            .sql_example
            .as_ref()
            .unwrap_or_else(|| panic!("{name} has no SQL example"));
        let sql: String = example
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join(" ");
        let sql = sql.trim().trim_end_matches(';').to_string();
        let base = run(&ctx, &sql)
            .await
            .unwrap_or_else(|e| panic!("{name}: {sql}: {e}"));
        for layout in ["LargeUtf8", "Utf8View"] {
            let mut stmt = parse(&sql);
            let _ = stmt.visit(&mut Cast(layout));
            let cast = stmt.to_string();
            let got = run(&ctx, &cast)
                .await
                .unwrap_or_else(|e| panic!("{name} with {layout} strings: {cast}: {e}"));
            assert_eq!(got, base, "{name} with {layout} strings: {cast}");
        }
        for i in 0.. {
            let mut stmt = parse(&sql);
            let mut null = Null {
                name: &name,
                i,
                found: false,
            };
            let _ = stmt.visit(&mut null);
            if !null.found {
                assert!(i > 0, "{name}: its example does not call it: {sql}");
                break;
            }
            let with_null = stmt.to_string();
            if let Err(e) = run(&ctx, &with_null).await {
                panic!("{name} with argument {} NULL: {with_null}: {e}", i + 1);
            }
        }
        checked += 1;
    }
    assert!(checked >= 18, "{checked} functions checked");
}
