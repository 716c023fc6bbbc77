//! `groundcheck sql`'s statements: parsed with DataFusion's parser, refused when they
//! create tables or reach files of their own unless allowed, run, and their result written
//! to a file as a set.

use std::path::Path;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::execution::context::SQLOptions;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{DFParser, Statement};

use crate::error::{Error, Result};
use crate::output::{ParquetFile, ResultFormat, print_batches, write_atomic};

/// The statement `\d` runs: the tables and views there are.
pub const LIST_TABLES: &str = "SELECT table_name, table_type FROM information_schema.tables \
                               WHERE table_schema = 'public' ORDER BY table_name";

/// A statement's result.
#[derive(Debug, Clone)]
pub struct Rows {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl Rows {
    /// Whether the statement returns a table (a query) rather than nothing (DDL).
    pub fn is_table(&self) -> bool {
        !self.schema.fields().is_empty()
    }

    /// Prints the rows in `format` to `out`.
    pub fn print(&self, out: &mut dyn std::io::Write, format: ResultFormat) -> Result<()> {
        print_batches(out, format, &self.schema, &self.batches)
    }

    /// Writes the rows to `path` in `format` (under a temporary name, then renamed).
    pub fn write(&self, path: &Path, format: ResultFormat) -> Result<()> {
        if format == ResultFormat::Parquet {
            let mut file = ParquetFile::create(path, Arc::clone(&self.schema))?;
            for b in &self.batches {
                file.write(b)?;
            }
            file.finish()?;
            return Ok(());
        }
        let mut buf = Vec::new();
        self.print(&mut buf, format)?;
        write_atomic(path, &buf).map_err(|e| Error::io(path.display(), e))
    }
}

/// The statements of `sql`, `;`-separated; a usage error when there is none.
pub fn parse(sql: &str) -> Result<Vec<Statement>> {
    let statements = DFParser::parse_sql(sql)
        .map_err(|e| Error::Config(format!("cannot parse the SQL: {e}")))?;
    if statements.is_empty() {
        return Err(Error::Config("no SQL statement given".into()));
    }
    Ok(statements.into_iter().collect())
}

/// Runs one statement. Unless `allow_files`, a statement that creates a table or view, or
/// reads or writes a file of its own, is a usage error.
pub async fn execute(ctx: &SessionContext, stmt: Statement, allow_files: bool) -> Result<Rows> {
    let plan = ctx
        .state()
        .statement_to_plan(stmt)
        .await
        .map_err(crate::error::in_user_sql)?;
    let options = SQLOptions::new()
        .with_allow_ddl(allow_files)
        .with_allow_dml(allow_files);
    if options.verify_plan(&plan).is_err() {
        return Err(Error::Config(
            "`groundcheck sql` reads the project's tables and writes only --output: this \
             statement creates a table or view, or reads or writes a file of its own; give \
             --allow-files to run it"
                .into(),
        ));
    }
    let df = ctx
        .execute_logical_plan(plan)
        .await
        .map_err(crate::error::in_user_sql)?;
    let schema = Arc::new(df.schema().as_arrow().clone());
    let batches = df.collect().await.map_err(crate::error::in_user_sql)?;
    Ok(Rows { schema, batches })
}
