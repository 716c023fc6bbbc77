//! `sql_fields(sql [, dialect [, catalog]])`: the base columns a query reads.
//!
//! Returns a struct `{fields: list<string>, reasons: list<string>, logic_fields:
//! list<string>}`: `fields` are the catalog entries (`schema.table.column` or
//! `table.column`) the SQL reads in any clause, sorted; `logic_fields` the subset its
//! logic reads (filters, join conditions, grouping, aggregate arguments; not a column
//! only shown by a projection, a star or ORDER BY); `reasons` say what could not be parsed or resolved (empty when everything
//! resolved). A NULL `sql` gives NULL. `catalog` is a list of `schema.table.column` /
//! `table.column` strings, e.g. `(SELECT array_agg(table_name || '.' || column_name) FROM
//! catalog)`; without it tables are taken as written. Wrong argument types: plan error.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, ListBuilder, StringBuilder, StructBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use crate::common::{SqlArgs, analysis, check_args, doc_section, sql_arrays};
use crate::sql::lineage;

crate::make_udf!(SqlFields, sql_fields_udf);

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Utf8, true))
}

fn struct_fields() -> Fields {
    Fields::from(vec![
        Field::new("fields", DataType::List(item()), true),
        Field::new("reasons", DataType::List(item()), true),
        Field::new("logic_fields", DataType::List(item()), true),
    ])
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "The base columns a SQL query reads, from every clause, resolved through aliases, CTEs, \
         derived tables and set operations (`fields`); those its logic reads: filters, joins, \
         grouping, aggregates, not a column only shown (`logic_fields`); with the reasons for \
         anything it could not resolve.",
        "sql_fields(sql [, dialect [, catalog]])",
    )
    .with_argument("sql", "The query text.")
    .with_argument("dialect", "generic (default), postgres, snowflake, bigquery, mysql, sqlite, duckdb, …")
    .with_argument("catalog", "List of `schema.table.column` or `table.column` the warehouse has.")
    .with_sql_example(
        "SELECT sql_fields('SELECT c.id FROM customers c', 'postgres', ['customers.id'])['fields'];\n-- [customers.id]",
    )
    .build()
});

impl ScalarUDFImpl for SqlFields {
    fn name(&self) -> &str {
        "sql_fields"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(self.name(), args, &["string", "string", "string list"], 1)?;
        Ok(DataType::Struct(struct_fields()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = sql_arrays(&args.args, rows, 2)?;
        let mut input = SqlArgs::new(&arrays, 0, 1, 2)?;
        let mut out = StructBuilder::new(
            struct_fields(),
            vec![
                Box::new(ListBuilder::new(StringBuilder::new()).with_field(item())),
                Box::new(ListBuilder::new(StringBuilder::new()).with_field(item())),
                Box::new(ListBuilder::new(StringBuilder::new()).with_field(item())),
            ],
        );
        for i in 0..rows {
            let Some(row) = input.row(i)? else {
                append(&mut out, None);
                continue;
            };
            let result = analysis(&row);
            append(&mut out, Some(&result.fields));
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

fn append(out: &mut StructBuilder, r: Option<&lineage::Fields>) {
    for (k, values) in [
        (0, r.map(|r| r.fields.iter().cloned().collect::<Vec<_>>())),
        (1, r.map(|r| r.reasons.clone())),
        (2, r.map(|r| r.logic.iter().cloned().collect::<Vec<_>>())),
    ] {
        let b = out
            .field_builder::<ListBuilder<StringBuilder>>(k)
            .expect("list builder");
        match values {
            Some(v) => {
                for s in v {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            None => b.append(false),
        }
    }
    out.append(r.is_some());
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, AsArray, StringArray, StringViewArray};
    use datafusion::arrow::datatypes::Field;
    use datafusion::config::ConfigOptions;

    fn run(sql: ArrayRef) -> datafusion::arrow::array::StructArray {
        let f = SqlFields::default();
        let rows = sql.len();
        let arg_fields = vec![Arc::new(Field::new("sql", sql.data_type().clone(), true))];
        let out = f
            .invoke_with_args(ScalarFunctionArgs {
                args: vec![ColumnarValue::Array(sql)],
                arg_fields,
                number_rows: rows,
                return_field: Arc::new(Field::new(
                    "r",
                    f.return_type(&[DataType::Utf8]).unwrap(),
                    true,
                )),
                config_options: Arc::new(ConfigOptions::default()),
            })
            .unwrap();
        match out {
            ColumnarValue::Array(a) => a.as_struct().clone(),
            _ => panic!("scalar"),
        }
    }

    #[test]
    fn nulls_utf8view_and_garbage() {
        let a: ArrayRef = Arc::new(StringViewArray::from(vec![
            Some("SELECT a FROM t"),
            None,
            Some("SELEC"),
        ]));
        let s = run(a);
        assert!(s.is_valid(0) && s.is_null(1) && s.is_valid(2));
        let fields = s.column(0).as_list::<i32>();
        assert_eq!(fields.value(0).as_string::<i32>().value(0), "t.a");
        let reasons = s.column(1).as_list::<i32>();
        assert!(
            reasons
                .value(2)
                .as_string::<i32>()
                .value(0)
                .starts_with("cannot parse")
        );
        let empty: ArrayRef = Arc::new(StringArray::from(Vec::<Option<&str>>::new()));
        assert_eq!(run(empty).len(), 0);
    }

    #[test]
    fn wrong_types_are_plan_errors() {
        let f = SqlFields::default();
        assert!(f.return_type(&[DataType::Int64]).is_err());
        assert!(f.return_type(&[]).is_err());
        assert!(
            f.return_type(&[DataType::Utf8, DataType::Utf8, DataType::Utf8])
                .is_err()
        );
    }
}
