//! The drift rules table (`drift_rules`): the rule registry of `groundcheck_udfs::drift`
//! as rows, so SQL can join changes to their rule text and list what is checked.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use groundcheck_udfs::drift::RULES;

use crate::error::Result;

pub const COLUMNS: &[(&str, &str)] = &[
    ("rule", "Rule id, e.g. input-property-likely-renamed."),
    ("direction", "tool, input, output, annotation or text."),
    (
        "severity",
        "breaking, likely-breaking, warning, review or compatible.",
    ),
    ("action", "Default action: block, warn or allow."),
    ("text", "What the rule detects."),
];

pub fn batch() -> Result<RecordBatch> {
    let schema = Arc::new(Schema::new(
        COLUMNS
            .iter()
            .map(|(n, _)| Field::new(*n, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    ));
    let col = |f: fn(&groundcheck_udfs::drift::Rule) -> String| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(RULES.iter().map(f)))
    };
    Ok(RecordBatch::try_new(
        schema,
        vec![
            col(|r| r.id.clone()),
            col(|r| r.direction.as_str().to_string()),
            col(|r| r.severity.as_str().to_string()),
            col(|r| r.action.as_str().to_string()),
            col(|r| r.text.clone()),
        ],
    )?)
}

pub fn register(ctx: &SessionContext) -> Result<()> {
    let b = batch()?;
    ctx.register_table(
        "drift_rules",
        Arc::new(MemTable::try_new(b.schema(), vec![vec![b]])?),
    )?;
    Ok(())
}
