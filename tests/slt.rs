//! Runs every `tests/slt/**/*.slt` file against a groundcheck session.
//!
//! Each file gets a fresh session on `datasets/demo`, or on the folder its first line
//! names (`# data: tests/fixtures/x`). Cells print as DataFusion's own sqllogictest does:
//! NULL as `NULL`, an empty string as `(empty)`. Closes with `N passed, N failed`.
//!
//! It speaks the test-list protocol nextest uses for custom harnesses: `--list --format
//! terse` prints one test per file (`tests/slt/x.slt: test`), `--list --ignored` prints
//! none, and `NAME --exact` runs that file alone; a plain argument filters by substring.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arrow::array::{Array, RecordBatch};
use arrow::datatypes::DataType;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use async_trait::async_trait;
use datafusion::sql::parser::DFParser;
use groundcheck::{Session, SessionOptions};
use sqllogictest::{DBOutput, DefaultColumnType};

struct Db {
    session: Session,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct DbError(String);

#[async_trait]
impl sqllogictest::AsyncDB for Db {
    type Error = DbError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, DbError> {
        let err = |e: &dyn std::fmt::Display| DbError(e.to_string());
        let mut statements = DFParser::parse_sql(sql).map_err(|e| err(&e))?;
        let stmt = statements
            .pop_front()
            .ok_or_else(|| DbError("no statement".into()))?;
        let plan = self
            .session
            .ctx
            .state()
            .statement_to_plan(stmt)
            .await
            .map_err(|e| err(&groundcheck::Error::from(e)))?;
        let df = self
            .session
            .ctx
            .execute_logical_plan(plan)
            .await
            .map_err(|e| err(&e))?;
        let schema = df.schema().as_arrow().clone();
        let batches = df
            .collect()
            .await
            .map_err(|e| err(&groundcheck::Error::from(e)))?;
        if schema.fields().is_empty() {
            return Ok(DBOutput::StatementComplete(0));
        }
        let types = schema
            .fields()
            .iter()
            .map(|f| column_type(f.data_type()))
            .collect();
        let rows = to_rows(&batches).map_err(|e| err(&e))?;
        Ok(DBOutput::Rows { types, rows })
    }

    async fn shutdown(&mut self) {}

    fn engine_name(&self) -> &str {
        "groundcheck"
    }
}

fn column_type(t: &DataType) -> DefaultColumnType {
    match t {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => DefaultColumnType::Integer,
        DataType::Float16 | DataType::Float32 | DataType::Float64 | DataType::Decimal128(_, _) => {
            DefaultColumnType::FloatingPoint
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => DefaultColumnType::Text,
        _ => DefaultColumnType::Any,
    }
}

fn to_rows(batches: &[RecordBatch]) -> Result<Vec<Vec<String>>, arrow::error::ArrowError> {
    let options = FormatOptions::default().with_null("NULL");
    let mut rows = Vec::new();
    for b in batches {
        let formatters = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()?;
        for i in 0..b.num_rows() {
            rows.push(
                formatters
                    .iter()
                    .zip(b.columns())
                    .map(|(f, c)| {
                        let s = f.value(i).to_string();
                        if s.is_empty() && c.is_valid(i) {
                            "(empty)".into()
                        } else {
                            s
                        }
                    })
                    .collect(),
            );
        }
    }
    Ok(rows)
}

fn data_dir(file: &Path, root: &Path) -> PathBuf {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .next()
        .and_then(|l| l.strip_prefix("# data:"))
        .map(|d| root.join(d.trim()))
        .unwrap_or_else(|| root.join("datasets/demo"))
}

fn slt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            slt_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "slt") {
            out.push(p);
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    // Read at run time (cargo sets it): a shared target dir may hold this binary built
    // from another checkout, whose path env!() would have baked in.
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let exact = has("--exact");
    let mut files = Vec::new();
    slt_files(&root.join("tests/slt"), &mut files);
    let name_of = |file: &Path| {
        file.strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string()
    };
    if has("--list") {
        // No test is ignored: the ignored list is empty.
        if !has("--ignored") {
            for file in &files {
                println!("{}: test", name_of(file));
            }
        }
        return ExitCode::SUCCESS;
    }
    let (mut passed, mut failed) = (0, 0);
    for file in files {
        let name = name_of(&file);
        let wanted = match &filter {
            None => true,
            Some(f) if exact => &name == f,
            Some(f) => name.contains(f.as_str()),
        };
        if !wanted {
            continue;
        }
        let data = data_dir(&file, &root).display().to_string();
        let mut runner = sqllogictest::Runner::new(move || {
            let data = data.clone();
            async move {
                let session = Session::open(SessionOptions {
                    data,
                    ..Default::default()
                })
                .await
                .map_err(|e| DbError(e.to_string()))?;
                Ok(Db { session })
            }
        });
        match runner.run_file_async(&file).await {
            Ok(()) => {
                println!("ok     {name}");
                passed += 1;
            }
            Err(e) => {
                println!("FAILED {name}\n{e}\n");
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
