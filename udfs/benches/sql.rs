//! Speed of the SQL analysis over the test corpus (`tests/corpus`), in queries per second
//! on one core: `sql_fields` on distinct queries (no memo), the `sql_fields` UDF over a
//! batch where queries repeat (memo hits, as in real traces), `predicate_match`, and the
//! grain checks. Target from issue 3: at least 20,000 distinct queries per second per core.
//!
//! Run: `cargo bench -p groundcheck-udfs --bench sql`.

#[path = "../tests/corpus/reader.rs"]
mod reader;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use datafusion::arrow::array::{ArrayRef, ListBuilder, StringArray, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::config::ConfigOptions;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl};
use groundcheck_udfs::sql::lineage::sql_fields;
use groundcheck_udfs::sql::predicate::predicate_match;
use groundcheck_udfs::sql::shape::grain_issues;
use groundcheck_udfs::sql::{Catalog, Dialect};
use groundcheck_udfs::sql_fields::SqlFields;

fn bench(c: &mut Criterion) {
    let entries = reader::catalog_entries();
    let catalog = Catalog::from_entries(entries.iter().map(String::as_str));
    let cases: Vec<(Dialect, String)> = reader::cases()
        .into_iter()
        .map(|c| (Dialect::from_name(&c.dialect).expect("dialect"), c.sql))
        .collect();
    let n = cases.len() as u64;

    let mut g = c.benchmark_group("sql");
    g.throughput(Throughput::Elements(n));
    g.bench_function("sql_fields/distinct", |b| {
        b.iter(|| {
            for (d, sql) in &cases {
                black_box(sql_fields(sql, d, &catalog));
            }
        })
    });
    g.bench_function("predicate_match/distinct", |b| {
        b.iter(|| {
            for (d, sql) in &cases {
                black_box(predicate_match(
                    sql,
                    "customers.subscription_status IN ('ACTIVE', 'PAUSED_BILLING')",
                    d,
                    &catalog,
                ));
            }
        })
    });
    g.bench_function("grain_issues/distinct", |b| {
        b.iter(|| {
            for (d, sql) in &cases {
                black_box(grain_issues(sql, d, &catalog).ok());
            }
        })
    });

    // The UDF over a batch of 10,000 calls drawn from the corpus: repeats hit the memo.
    let rows = 10_000usize;
    let sql: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| cases[i % cases.len()].1.clone()),
    ));
    let mut cat = ListBuilder::new(StringBuilder::new());
    for _ in 0..rows {
        for e in &entries {
            cat.values().append_value(e);
        }
        cat.append(true);
    }
    let cat: ArrayRef = Arc::new(cat.finish());
    let udf = SqlFields::default();
    let return_type = udf
        .return_type(&[DataType::Utf8, DataType::Utf8, cat.data_type().clone()])
        .expect("types");
    g.throughput(Throughput::Elements(rows as u64));
    g.bench_function("sql_fields_udf/batch_of_10k_repeating", |b| {
        b.iter(|| {
            let args = ScalarFunctionArgs {
                args: vec![
                    ColumnarValue::Array(sql.clone()),
                    ColumnarValue::Scalar("generic".into()),
                    ColumnarValue::Array(cat.clone()),
                ],
                arg_fields: vec![
                    Arc::new(Field::new("sql", DataType::Utf8, true)),
                    Arc::new(Field::new("dialect", DataType::Utf8, true)),
                    Arc::new(Field::new("catalog", cat.data_type().clone(), true)),
                ],
                number_rows: rows,
                return_field: Arc::new(Field::new("r", return_type.clone(), true)),
                config_options: Arc::new(ConfigOptions::default()),
            };
            black_box(udf.invoke_with_args(args).expect("invoke"))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
