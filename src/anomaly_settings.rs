//! `anomaly_settings`: the thresholds of the runtime guards (queries/tool_health.sql,
//! queries/response_anomalies.sql). Empty by default, so the views use their written
//! defaults; `groundcheck anomalies` inserts the one row its flags give.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

use crate::error::Result;

pub static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("window_unit", DataType::Utf8, true),
        Field::new("min_calls", DataType::Int64, true),
        Field::new("jump", DataType::Float64, true),
        Field::new("min_baseline", DataType::Int64, true),
        Field::new("z", DataType::Float64, true),
    ]))
});

pub fn register(ctx: &SessionContext) -> Result<()> {
    ctx.register_table(
        "anomaly_settings",
        Arc::new(MemTable::try_new(SCHEMA.clone(), vec![vec![]])?),
    )?;
    Ok(())
}
