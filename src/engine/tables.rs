//! The tables every session has besides the inputs: `drift_rules` (the rule registry as
//! rows), `anomaly_settings` (the runtime guards' thresholds, filled by `groundcheck
//! anomalies`), `external_policy` (the policy oracle's raw answers, filled by
//! `eval::oracle`), `old_*` (an older context, filled by `suite impact --old`) and
//! `candidate_snapshots` (filled by `replay --candidate`). Registered empty where a verb
//! fills them, so every view plans against the same schema.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::prelude::SessionContext;
use groundcheck_udfs::changes::RULES;

use crate::error::Result;
use crate::model::TableSpec;

/// The tables `suite impact` compares with an older version, each as `old_NAME`.
pub static OLD_TABLES: LazyLock<[&'static TableSpec; 4]> = LazyLock::new(|| {
    [
        &*crate::model::CATALOG,
        &*crate::model::GLOSSARY,
        &*crate::model::POLICIES,
        &*crate::model::TOOL_SNAPSHOTS,
    ]
});

/// Registers every fixed table. On a cluster, `external_policy` is a table of no files:
/// the oracle runs locally and its in-memory answers cannot be shipped.
pub fn register(ctx: &SessionContext, on_cluster: bool) -> Result<()> {
    let b = drift_rules()?;
    ctx.register_table(
        "drift_rules",
        Arc::new(MemTable::try_new(b.schema(), vec![vec![b]])?),
    )?;
    ctx.register_table("anomaly_settings", empty_mem(ANOMALY_SETTINGS.clone())?)?;
    register_failure_classes(ctx)?;
    let policy = crate::model::EXTERNAL_POLICY;
    if on_cluster {
        ctx.register_table(
            policy,
            empty_table(policy, crate::model::external_policy_schema())?,
        )?;
    } else {
        ctx.register_table(policy, empty_mem(crate::model::external_policy_schema())?)?;
    }
    for spec in OLD_TABLES.iter() {
        ctx.register_table(
            format!("old_{}", spec.name),
            empty_mem(spec.schema.clone())?,
        )?;
    }
    ctx.register_table(
        "candidate_snapshots",
        empty_mem(crate::model::TOOL_SNAPSHOTS.schema.clone())?,
    )?;
    Ok(())
}

/// `failure_classes`: seed 000's five classes (`model::FAILURE_CLASSES`) with their
/// precedence in labels.failure_class, for views that list every class.
pub fn register_failure_classes(ctx: &SessionContext) -> Result<()> {
    let classes = crate::model::FAILURE_CLASSES;
    let schema = Arc::new(Schema::new(vec![
        Field::new("class", DataType::Utf8, false),
        Field::new("precedence", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from_iter_values(classes.iter())),
            Arc::new(datafusion::arrow::array::Int64Array::from_iter_values(
                1..=classes.len() as i64,
            )),
        ],
    )?;
    ctx.register_table(
        "failure_classes",
        Arc::new(MemTable::try_new(schema, vec![vec![batch]])?),
    )?;
    Ok(())
}

fn empty_mem(schema: SchemaRef) -> Result<Arc<dyn TableProvider>> {
    Ok(Arc::new(MemTable::try_new(schema, vec![vec![]])?))
}

/// An empty table named `name` with `schema` (one Parquet file of no rows, which a
/// cluster can read too: `store::registry::empty_url`).
pub fn empty_table(name: &str, schema: SchemaRef) -> Result<Arc<dyn TableProvider>> {
    let options =
        ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    let url = crate::store::registry::empty_url(name);
    let config = ListingTableConfig::new(ListingTableUrl::parse(url)?)
        .with_listing_options(options)
        .with_schema(schema);
    Ok(Arc::new(ListingTable::try_new(config)?))
}

/// `anomaly_settings`: empty by default, so queries/tool_health.sql and
/// queries/response_anomalies.sql use their written defaults.
pub static ANOMALY_SETTINGS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("window_unit", DataType::Utf8, true),
        Field::new("min_calls", DataType::Int64, true),
        Field::new("jump", DataType::Float64, true),
        Field::new("min_baseline", DataType::Int64, true),
        Field::new("z", DataType::Float64, true),
    ]))
});

/// `drift_rules`' columns and what they hold.
pub const DRIFT_RULES_COLUMNS: &[(&str, &str)] = &[
    ("rule", "Rule id, e.g. input-property-likely-renamed."),
    ("direction", "tool, input, output, annotation or text."),
    (
        "severity",
        "breaking, likely-breaking, warning, review or compatible.",
    ),
    ("action", "Default action: block, warn or allow."),
    ("text", "What the rule detects."),
];

/// The rule registry of `groundcheck_udfs::changes` as rows, so SQL can join changes to
/// their rule text and list what is checked.
pub fn drift_rules() -> Result<RecordBatch> {
    let schema = Arc::new(Schema::new(
        DRIFT_RULES_COLUMNS
            .iter()
            .map(|(n, _)| Field::new(*n, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    ));
    let col = |f: fn(&groundcheck_udfs::changes::Rule) -> String| -> ArrayRef {
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

/// A Parquet or JSON-lines file or folder as table `name`: `sql --table NAME=PATH` for a
/// name that is not an input table, so outputs (labels.parquet, report.parquet, imports)
/// are tables too. JSON lines by extension (`.jsonl`, `.json`, `.ndjson`, or a folder that
/// holds only those); Parquet otherwise.
pub async fn register_file(ctx: &SessionContext, name: &str, path: &str) -> Result<()> {
    use crate::error::Error;
    if ctx
        .table_exist(name)
        .map_err(|e| Error::Config(format!("{name}: {e}")))?
    {
        return Err(Error::Config(format!(
            "{name} is already a table or view: pick another name"
        )));
    }
    let target = if path.contains("://") {
        path.to_string()
    } else {
        let abs = std::path::absolute(path).map_err(|e| Error::io(path, e))?;
        let abs = crate::store::location::lexical(&abs);
        if !abs.exists() {
            return Err(Error::Input(format!(
                "{}: no such file or folder",
                abs.display()
            )));
        }
        abs.display().to_string()
    };
    let json_ext = |p: &str| {
        let l = p.to_ascii_lowercase();
        [".jsonl", ".json", ".ndjson"]
            .into_iter()
            .find(|e| l.ends_with(e))
    };
    let dir = std::path::Path::new(&target);
    let folder_ext = if dir.is_dir() {
        let names: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(&target, e))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| !n.starts_with('.'))
            .collect();
        let exts: std::collections::BTreeSet<&str> =
            names.iter().filter_map(|n| json_ext(n)).collect();
        let parquet = names
            .iter()
            .any(|n| n.to_ascii_lowercase().ends_with(".parquet"));
        match (exts.len(), parquet) {
            (1, false) => exts.into_iter().next(),
            _ => None,
        }
    } else {
        None
    };
    match json_ext(&target).or(folder_ext) {
        Some(ext) => {
            let opts = datafusion::prelude::JsonReadOptions::default().file_extension(ext);
            ctx.register_json(name, &target, opts).await?
        }
        None => {
            ctx.register_parquet(
                name,
                &target,
                datafusion::prelude::ParquetReadOptions::default(),
            )
            .await?
        }
    }
    Ok(())
}
