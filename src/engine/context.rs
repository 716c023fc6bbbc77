//! One way to build a DataFusion context, for local runs, reports and every side of a
//! Ballista cluster: our options, our object stores, our functions and
//! datafusion-functions-json's.

use std::sync::Arc;

use datafusion::execution::SessionStateBuilder;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::session_state::SessionState;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::error::Result;
use crate::store::registry::S3Registry;

/// Where queries run besides this process (`engine::cluster`, the `ballista` feature).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cluster {
    /// A Ballista scheduler at `df://host:port`.
    Remote(String),
    /// A Ballista scheduler and an executor started in this process (tests, trying it out).
    Standalone,
}

/// How long a verb waits on a cluster before it fails (`--cluster-wait`,
/// `--cluster-timeout`): a cluster job never waits forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// The scheduler counts no live executor this long.
    pub no_executor: std::time::Duration,
    /// The verb's work on the cluster has not finished this long after it began.
    pub total: std::time::Duration,
}

impl Default for Patience {
    fn default() -> Self {
        Patience {
            no_executor: std::time::Duration::from_secs(120),
            total: std::time::Duration::from_secs(3600),
        }
    }
}

/// A local context: our options, functions and stores.
pub fn new_context() -> Result<SessionContext> {
    Ok(SessionContext::new_with_state(session_state(
        SessionConfig::new(),
    )?))
}

/// A local context with `n` partitions per stage.
pub fn with_partitions(n: usize) -> Result<SessionContext> {
    Ok(SessionContext::new_with_state(session_state(
        SessionConfig::new().with_target_partitions(n.max(1)),
    )?))
}

/// One partition, rows in fixed batches: floating-point sums (cost_total_usd) then add in
/// the labels' order whatever batches they came in (a cluster's differed in the last
/// digit at 1M tasks). Reports and label files are read in such a context.
pub fn single_partition() -> Result<SessionContext> {
    with_partitions(1)
}

/// A runtime whose object stores come from the AWS environment.
pub fn runtime() -> datafusion::common::Result<Arc<RuntimeEnv>> {
    RuntimeEnvBuilder::new()
        .with_object_store_registry(Arc::new(S3Registry::default()))
        .build_arc()
}

/// Registers every function groundcheck's SQL calls.
pub fn register_functions(ctx: &mut SessionContext) -> datafusion::common::Result<()> {
    groundcheck_udfs::register_all(ctx)?;
    datafusion_functions_json::register_all(ctx)?;
    Ok(())
}

/// A session state with `config` and our options (which travel with it to a cluster's
/// scheduler and executors), our runtime and our functions.
pub fn session_state(config: SessionConfig) -> datafusion::common::Result<SessionState> {
    let state = SessionStateBuilder::new()
        .with_config(env_options(apply_options(config))?)
        .with_runtime_env(runtime()?)
        .with_default_features()
        .build();
    let mut ctx = SessionContext::new_with_state(state);
    register_functions(&mut ctx)?;
    Ok(ctx.state())
}

/// DataFusion's options from `DATAFUSION_*` environment variables, over ours: the option
/// `datafusion.optimizer.prefer_hash_join` is `DATAFUSION_OPTIMIZER_PREFER_HASH_JOIN`
/// (DataFusion's own convention). To tune a machine, or to measure a setting without a
/// rebuild (benches/RESULTS.md); a name that is no option is refused.
fn env_options(mut config: SessionConfig) -> datafusion::common::Result<SessionConfig> {
    let vars: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("DATAFUSION_"))
        .collect();
    if vars.is_empty() {
        return Ok(config);
    }
    let keys: Vec<String> = config
        .options()
        .entries()
        .into_iter()
        .map(|e| e.key)
        .collect();
    for (var, value) in vars {
        let Some(key) = keys
            .iter()
            .find(|k| k.to_uppercase().replace('.', "_") == var)
        else {
            return Err(datafusion::error::DataFusionError::Configuration(format!(
                "environment variable {var}: no DataFusion option of that name \
                 (DATAFUSION_ followed by an option's key in capitals, dots as underscores)"
            )));
        };
        config.options_mut().set(key, &value).map_err(|e| {
            datafusion::error::DataFusionError::Configuration(format!(
                "environment variable {var}={value}: {e}"
            ))
        })?;
    }
    Ok(config)
}

/// The state a chunk's tables and views are filled with (`eval::chunks`): hash joins.
/// Their inputs are one chunk's rows, bounded by `--chunk-steps`, so a hash table stays
/// small, and neither side is sorted: at 100k tasks label took 4.6 s against 5.7 s with
/// sort-merge joins (benches/RESULTS.md). The labels query, joining wide per-task rows,
/// keeps `apply_options`' sort-merge joins. `DATAFUSION_OPTIMIZER_PREFER_HASH_JOIN`, when
/// set, wins here too.
///
/// And every hash join builds one table from its whole smaller side (`CollectLeft`)
/// rather than one per partition: partitioned, both sides were first split by a hash of
/// the key, which copies every row, its SQL and JSON text with it (1M tasks: 33-34 s
/// against 36-40 s, same bytes; benches/RESULTS.md). A chunk bounds that side too. The
/// two `DATAFUSION_OPTIMIZER_HASH_JOIN_SINGLE_PARTITION_THRESHOLD*` variables, when set,
/// win here.
pub fn chunk_state(ctx: &SessionContext) -> SessionState {
    let mut state = ctx.state();
    let optimizer = &mut state.config_mut().options_mut().optimizer;
    if std::env::var_os("DATAFUSION_OPTIMIZER_PREFER_HASH_JOIN").is_none() {
        optimizer.prefer_hash_join = true;
    }
    if std::env::var_os("DATAFUSION_OPTIMIZER_HASH_JOIN_SINGLE_PARTITION_THRESHOLD").is_none() {
        optimizer.hash_join_single_partition_threshold = usize::MAX;
    }
    if std::env::var_os("DATAFUSION_OPTIMIZER_HASH_JOIN_SINGLE_PARTITION_THRESHOLD_ROWS").is_none()
    {
        optimizer.hash_join_single_partition_threshold_rows = usize::MAX;
    }
    state
}

/// The options `apply_options` changes, as `SET`-able key/value pairs (the Python package
/// sets them in a notebook's own context before it registers the views).
pub fn changed_options() -> Vec<(String, String)> {
    let default = SessionConfig::new().options().entries();
    apply_options(SessionConfig::new())
        .options()
        .entries()
        .into_iter()
        .filter(|e| !default.iter().any(|d| d.key == e.key && d.value == e.value))
        .filter_map(|e| Some((e.key, e.value?)))
        .collect()
}

/// The session options every groundcheck query runs with, locally or on a cluster.
pub fn apply_options(config: SessionConfig) -> SessionConfig {
    let mut config = config.with_information_schema(true);
    // DataFusion 55's leaf-expression pushdown (struct field access moved towards the scan)
    // gave us planning errors and, once, wrong rows on the labels queries; upstream tracks
    // this class of bug in apache/datafusion#25459. Correct rows first: it stays off.
    config
        .options_mut()
        .optimizer
        .enable_leaf_expression_pushdown = false;
    // Sort-merge joins: the labels query joins ~15 per-task views on (run_id, server,
    // case_id) with wide rows; with hash joins it took 3.3x the time and 2.8x the memory
    // at 100k tasks (benches/RESULTS.md), and with single-partition hash joins 24 GiB.
    // Views filled one chunk at a time use hash joins (`chunk_state`).
    config.options_mut().optimizer.prefer_hash_join = false;
    config
}
