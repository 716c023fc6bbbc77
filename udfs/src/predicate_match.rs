//! `predicate_match(sql, predicate [, dialect [, catalog [, question]]])` -> `match` |
//! `mismatch` | `unsure`, and `predicate_match_reason(…)` -> why. With the question, a
//! query that keeps only some states of the governed set matches when the question names
//! each of them ("MRR on the enterprise plan").
//!
//! Does the query's filtering (WHERE, JOIN ON, HAVING, QUALIFY, aggregate FILTER) imply
//! the governed predicate, a SQL boolean expression from the glossary? See
//! `sql::predicate` for the normal forms. NULL `sql` or `predicate` gives NULL; what cannot
//! be decided gives `unsure` with a reason. Wrong argument types: plan error.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, StringBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::common::{
    Memo, SqlArgs, SqlRow, Strings, analysis, check_args, doc_section, sql_arrays,
};
use crate::sql::predicate::{self, Verdict};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct PredicateMatch {
    signature: Signature,
    /// `predicate_match_reason`: return the reason instead of the verdict.
    reason: bool,
}

impl PredicateMatch {
    pub fn verdict() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
            reason: false,
        }
    }

    pub fn reason() -> Self {
        Self {
            reason: true,
            ..Self::verdict()
        }
    }
}

/// A governed predicate parsed, with the inputs it answers (the memo is keyed by their
/// hash, so a lookup copies nothing; differing inputs are a collision, parsed anew).
struct Governed {
    predicate: Box<str>,
    dialect: Box<str>,
    atoms: Result<Vec<predicate::Atom>, String>,
}

/// Governed predicates parsed, by (predicate, dialect): a glossary has a few, asked of
/// every task's SQL.
static GOVERNED: LazyLock<Memo<u64, Arc<Governed>>> = LazyLock::new(|| Memo::new(4_096));

fn governed(p: &str, row: &SqlRow) -> Arc<Governed> {
    use std::hash::BuildHasher;
    let key = foldhash::fast::FixedState::default().hash_one((p, row.dialect_name));
    let same = |g: &Arc<Governed>| *g.predicate == *p && *g.dialect == *row.dialect_name;
    GOVERNED.get_or_if(&key, same, || {
        Arc::new(Governed {
            predicate: p.into(),
            dialect: row.dialect_name.into(),
            atoms: row.dialect().and_then(|d| predicate::governed_atoms(p, &d)),
        })
    })
}

fn doc(reason: bool) -> Documentation {
    let (what, name) = if reason {
        (
            "Why predicate_match answered as it did.",
            "predicate_match_reason",
        )
    } else {
        (
            "Whether a query's filters apply a governed predicate: match, mismatch or unsure.",
            "predicate_match",
        )
    };
    Documentation::builder(
        doc_section(),
        what,
        format!("{name}(sql, predicate [, dialect [, catalog [, question]]])"),
    )
    .with_argument("sql", "The query text.")
    .with_argument("predicate", "The governed predicate, a SQL boolean expression over table.column names.")
    .with_argument("dialect", "generic (default), postgres, snowflake, bigquery, mysql, sqlite, duckdb, …")
    .with_argument("catalog", "List of `schema.table.column` or `table.column` the warehouse has.")
    .with_argument("question", "The task's question: a query that keeps only states the question names (\"MRR on the enterprise plan\") of the governed set matches.")
    .with_sql_example(if reason {
        "SELECT predicate_match_reason('SELECT count(*) FROM c WHERE s = ''A''', 'c.s IN (''A'', ''B'')');\n-- the filter on c.s is narrower than the governed one: it keeps only 'A'"
    } else {
        "SELECT predicate_match('SELECT count(*) FROM c WHERE s = ''A'' OR s = ''B''', 'c.s IN (''A'', ''B'')');\n-- match"
    })
    .build()
}

static DOC_VERDICT: LazyLock<Documentation> = LazyLock::new(|| doc(false));
static DOC_REASON: LazyLock<Documentation> = LazyLock::new(|| doc(true));

impl ScalarUDFImpl for PredicateMatch {
    fn name(&self) -> &str {
        if self.reason {
            "predicate_match_reason"
        } else {
            "predicate_match"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(
            self.name(),
            args,
            &["string", "string", "string", "string list", "string"],
            2,
        )?;
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = sql_arrays(&args.args, rows, 3)?;
        let pred = Strings::new(&arrays[1])?;
        let mut input = SqlArgs::new(&arrays, 0, 2, 3)?;
        let questions = arrays.get(4).map(Strings::new).transpose()?;
        let mut out = StringBuilder::new();
        for i in 0..rows {
            let (Some(row), Some(p)) = (input.row(i)?, pred.get(i)) else {
                out.append_null();
                continue;
            };
            // An unknown dialect is the reason, before the predicate and the SQL.
            let governed = governed(p, &row);
            let question = questions.as_ref().and_then(|q| q.get(i));
            let (verdict, reason) = match &governed.atoms {
                Ok(g) => predicate::verdict(&analysis(&row), g, question),
                Err(r) => (Verdict::Unsure, r.clone()),
            };
            if self.reason {
                out.append_value(&reason);
            } else {
                out.append_value(verdict.as_str());
            }
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(if self.reason {
            &DOC_REASON
        } else {
            &DOC_VERDICT
        })
    }
}
