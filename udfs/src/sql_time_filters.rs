//! `sql_time_filters(sql [, dialect [, catalog]])`: the time window a query applies.
//!
//! Returns a list with one struct per column the query's filters (WHERE, JOIN ON, HAVING,
//! QUALIFY, FILTER) bound by a date, a timestamp or a relative time expression:
//! `{field, lower, lower_inclusive, upper, upper_inclusive}`, with the tightest bounds
//! found, bounds as text (`2026-04-01`, or `current_date - interval '7 days'`). NULL when
//! the SQL is NULL or cannot be parsed (`sql_fields` says why). Wrong argument types:
//! plan error.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, BooleanBuilder, ListBuilder, StringBuilder, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use crate::common::{SqlArgs, analysis, check_args, doc_section, sql_arrays};

crate::make_udf!(SqlTimeFilters, sql_time_filters_udf);

fn item_fields() -> Fields {
    Fields::from(vec![
        Field::new("field", DataType::Utf8, true),
        Field::new("lower", DataType::Utf8, true),
        Field::new("lower_inclusive", DataType::Boolean, true),
        Field::new("upper", DataType::Utf8, true),
        Field::new("upper_inclusive", DataType::Boolean, true),
    ])
}

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(item_fields()), true))
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "The columns a query's filters bound in time, with the bounds: to compare with a case's \
         gold window and with the timestamp column a metric is defined on.",
        "sql_time_filters(sql [, dialect [, catalog]])",
    )
    .with_argument("sql", "The query text.")
    .with_argument("dialect", "generic (default), postgres, snowflake, bigquery, mysql, sqlite, duckdb, …")
    .with_argument("catalog", "List of catalog entries, as for sql_fields.")
    .with_sql_example(
        "SELECT sql_time_filters('SELECT 1 FROM o WHERE d >= DATE ''2026-04-01'' AND d < ''2026-07-01''');\n\
         -- [{field: o.d, lower: 2026-04-01, lower_inclusive: true, upper: 2026-07-01, upper_inclusive: false}]",
    )
    .build()
});

impl ScalarUDFImpl for SqlTimeFilters {
    fn name(&self) -> &str {
        "sql_time_filters"
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
        let values = StructBuilder::new(
            item_fields(),
            vec![
                Box::new(StringBuilder::new()),
                Box::new(StringBuilder::new()),
                Box::new(BooleanBuilder::new()),
                Box::new(StringBuilder::new()),
                Box::new(BooleanBuilder::new()),
            ],
        );
        let mut out = ListBuilder::new(values).with_field(item());
        for i in 0..rows {
            let Some(row) = input.row(i)? else {
                out.append(false);
                continue;
            };
            let analysed = analysis(&row);
            let Ok(facts) = &analysed.facts else {
                out.append(false);
                continue;
            };
            let b = out.values();
            for f in &facts.time_filters {
                b.field_builder::<StringBuilder>(0)
                    .expect("field")
                    .append_value(&f.field);
                for (k, bound) in [(1, &f.lower), (3, &f.upper)] {
                    let (text, incl) = match bound {
                        Some((t, incl)) => (Some(t.as_str()), Some(*incl)),
                        None => (None, None),
                    };
                    b.field_builder::<StringBuilder>(k)
                        .expect("bound")
                        .append_option(text);
                    b.field_builder::<BooleanBuilder>(k + 1)
                        .expect("inclusive")
                        .append_option(incl);
                }
                b.append(true);
            }
            out.append(true);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
