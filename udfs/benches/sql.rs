//! Speed of the SQL analysis over the test corpus (`tests/corpus`), in queries per second
//! on one core: `sql_fields` on distinct queries (no memo), the `sql_fields` UDF over a
//! batch where queries repeat (memo hits, as in real traces), `predicate_match`, and the
//! grain checks. Target from issue 3: at least 20,000 distinct queries per second per core.
//!
//! The per-call pass (issue 25), `per_call/*`: what labeling asks of each call's SQL, the
//! fields, time filters and grain findings (call_fields) and a predicate verdict
//! (task_definition_match). `per_call/separately` is each asked on its own, four parses;
//! `per_call/analyse` the one shared analysis; `per_call/parse_only` sqlparser's tokenizer
//! and parser alone on the same SQL (the floor under it); `per_call/udfs_batch` the four functions
//! over a batch of 8,192 distinct calls with the catalog as one scalar, as the queries call
//! them (each batch's SQL made new with a comment, so the memo does not answer).
//!
//! Run: `cargo bench -p groundcheck-udfs --bench sql`.
//!
//! On mimalloc, the allocator the groundcheck binary runs on (src/main.rs): parsing and
//! walking SQL allocate throughout (glibc's malloc and free were a fifth of this
//! benchmark's samples before, benches/RESULTS.md, 2026-12-08).

#[path = "../tests/corpus/reader.rs"]
mod reader;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use datafusion::arrow::array::{ArrayRef, ListBuilder, StringArray, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::ScalarValue;
use datafusion::config::ConfigOptions;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl};
use groundcheck_udfs::predicate_match::PredicateMatch;
use groundcheck_udfs::sql::analysis::{analyse, grain_issues, time_filters};
use groundcheck_udfs::sql::lineage::sql_fields;
use groundcheck_udfs::sql::predicate::predicate_match;
use groundcheck_udfs::sql::{Catalog, Dialect};
use groundcheck_udfs::sql_fields::SqlFields;
use groundcheck_udfs::sql_grain_issues::SqlGrainIssues;
use groundcheck_udfs::sql_time_filters::SqlTimeFilters;

const GOVERNED: &str = "customers.subscription_status IN ('ACTIVE', 'PAUSED_BILLING')";

/// The test corpus: its catalog entries, that catalog, and (dialect, SQL) per case.
fn corpus() -> (Vec<String>, Catalog, Vec<(Dialect, String)>) {
    let entries = reader::catalog_entries();
    let catalog = Catalog::from_entries(entries.iter().map(String::as_str));
    let cases: Vec<(Dialect, String)> = reader::cases()
        .into_iter()
        .map(|c| (Dialect::from_name(&c.dialect).expect("dialect"), c.sql))
        .collect();
    (entries, catalog, cases)
}

fn bench(c: &mut Criterion) {
    let (entries, catalog, cases) = corpus();
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

fn invoke(udf: &dyn ScalarUDFImpl, args: Vec<ColumnarValue>, rows: usize) -> ColumnarValue {
    let types: Vec<DataType> = args.iter().map(|a| a.data_type()).collect();
    let return_type = udf.return_type(&types).expect("types");
    let args = ScalarFunctionArgs {
        arg_fields: types
            .iter()
            .map(|t| Arc::new(Field::new("a", t.clone(), true)))
            .collect(),
        args,
        number_rows: rows,
        return_field: Arc::new(Field::new("r", return_type, true)),
        config_options: Arc::new(ConfigOptions::default()),
    };
    udf.invoke_with_args(args).expect("invoke")
}

fn per_call(c: &mut Criterion) {
    let (entries, catalog, cases) = corpus();
    let mut g = c.benchmark_group("per_call");
    g.throughput(Throughput::Elements(cases.len() as u64));
    g.bench_function("separately", |b| {
        b.iter(|| {
            for (d, sql) in &cases {
                black_box(sql_fields(sql, d, &catalog));
                black_box(time_filters(sql, d, &catalog).ok());
                black_box(grain_issues(sql, d, &catalog).ok());
                black_box(predicate_match(sql, GOVERNED, d, &catalog));
            }
        })
    });
    // The floor under `analyse`: sqlparser's tokenizer and parser alone on the same SQL.
    g.bench_function("parse_only", |b| {
        b.iter(|| {
            for (d, sql) in &cases {
                black_box(d.parse(sql).ok());
            }
        })
    });
    g.bench_function("analyse", |b| {
        b.iter(|| {
            for (d, sql) in &cases {
                black_box(analyse(sql, d, &catalog));
            }
        })
    });

    let rows = 8_192usize;
    let mut list = ListBuilder::new(StringBuilder::new());
    for e in &entries {
        list.values().append_value(e);
    }
    list.append(true);
    let list: ArrayRef = Arc::new(list.finish());
    let catalog_arg = ColumnarValue::Scalar(ScalarValue::try_from_array(&list, 0).expect("list"));
    let dialects: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| cases[i % cases.len()].0.name.clone()),
    ));
    let mut batch = 0u64;
    g.throughput(Throughput::Elements(rows as u64));
    g.bench_function("udfs_batch", |b| {
        b.iter_batched(
            || {
                batch += 1;
                let sql: ArrayRef =
                    Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
                        format!("{}\n-- batch {batch} call {i}", cases[i % cases.len()].1)
                    })));
                sql
            },
            |sql| {
                let args = || {
                    vec![
                        ColumnarValue::Array(sql.clone()),
                        ColumnarValue::Array(dialects.clone()),
                        catalog_arg.clone(),
                    ]
                };
                black_box(invoke(&SqlFields::default(), args(), rows));
                black_box(invoke(&SqlTimeFilters::default(), args(), rows));
                black_box(invoke(&SqlGrainIssues::default(), args(), rows));
                let pred = vec![
                    ColumnarValue::Array(sql.clone()),
                    ColumnarValue::Scalar(GOVERNED.into()),
                    ColumnarValue::Array(dialects.clone()),
                    catalog_arg.clone(),
                ];
                black_box(invoke(&PredicateMatch::verdict(), pred, rows));
            },
            criterion::BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, bench, per_call);
criterion_main!(benches);
