//! `sql_grain_issues(sql [, dialect [, catalog]])`: what is wrong with a query's grain.
//!
//! Returns a list of findings, one sentence each: `fan-out: sum(orders.total_cents) after
//! the one-to-many join to order_lines on order_lines.order_id -> orders.id` (an aggregate
//! over a parent table's measure after joining a child by its foreign key) and `units:
//! orders.total_cents [cents] > order_lines.unit_price_usd [USD]` (arithmetic or
//! comparison between amounts of different units). Keys and units come from catalog
//! entries' annotations (`-> table.column`, `[unit]`). Empty when none; NULL when the SQL
//! is NULL or cannot be parsed. Wrong argument types: plan error.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, ListBuilder, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use crate::common::{SqlArgs, analysis, check_args, doc_section, sql_arrays};

crate::make_udf!(SqlGrainIssues, sql_grain_issues_udf);

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Utf8, true))
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Grain findings of a query: aggregates fanned out by a one-to-many join, and amounts of \
         different units added or compared.",
        "sql_grain_issues(sql [, dialect [, catalog]])",
    )
    .with_argument("sql", "The query text.")
    .with_argument("dialect", "generic (default), postgres, snowflake, bigquery, mysql, sqlite, duckdb, …")
    .with_argument("catalog", "Catalog entries with keys and units: `orders.id pk`, `order_lines.order_id -> orders.id`, `orders.total_cents [cents]`.")
    .with_sql_example(
        "SELECT sql_grain_issues('SELECT sum(o.total) FROM o JOIN l ON l.oid = o.id', 'generic', ['o.id pk', 'o.total', 'l.oid -> o.id']);\n\
         -- [fan-out: sum(o.total) after the one-to-many join to l on l.oid -> o.id]",
    )
    .build()
});

impl ScalarUDFImpl for SqlGrainIssues {
    fn name(&self) -> &str {
        "sql_grain_issues"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(self.name(), args, &["string", "string", "string list"], 1)?;
        Ok(DataType::List(item()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = sql_arrays(&args.args, rows, 2)?;
        let mut input = SqlArgs::new(&arrays, 0, 1, 2)?;
        let mut out = ListBuilder::new(StringBuilder::new()).with_field(item());
        for i in 0..rows {
            let Some(row) = input.row(i)? else {
                out.append(false);
                continue;
            };
            match &analysis(&row).facts {
                Ok(facts) => {
                    for s in &facts.grain_issues {
                        out.values().append_value(s);
                    }
                    out.append(true);
                }
                Err(_) => out.append(false),
            }
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
