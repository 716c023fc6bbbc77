//! The same SQL and functions on a Ballista cluster. A query is planned by the client,
//! sent to the scheduler by name (every function travels as its name: each side
//! registers them all), split into stages and run by the executors, which read the
//! tables from S3 (or a shared file system) themselves.
//!
//! All three sides build their session the same way (`engine::context::session_state`):
//! our options (sort-merge joins, no leaf pushdown), our S3 registry from the AWS
//! environment, our functions and datafusion-functions-json's. Behind the `ballista`
//! feature (on by default).

use std::net::SocketAddr;
use std::sync::Arc;

use ballista::prelude::SessionContextExt;
use ballista_core::registry::BallistaFunctionRegistry;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use crate::engine::context::Cluster;
use crate::engine::context::{register_functions, runtime, session_state};
use crate::error::{Error, Result};

/// A client context whose queries run on `cluster`.
pub async fn context(cluster: &Cluster, partitions: Option<usize>) -> Result<SessionContext> {
    let config = <SessionConfig as ballista_core::extension::SessionConfigExt>::new_with_ballista();
    let mut config = config;
    if let Some(n) = partitions {
        config = config.with_target_partitions(n.max(1));
    }
    config = with_our_ballista_options(config);
    let state = session_state(config)?;
    let mut ctx = match cluster {
        Cluster::Remote(url) => SessionContext::remote_with_state(url, state)
            .await
            .map_err(|e| Error::Input(format!("cannot reach the Ballista scheduler {url}: {e}")))?,
        Cluster::Standalone => {
            let url = standalone().await?;
            SessionContext::remote_with_state(&url, state)
                .await
                .map_err(|e| Error::Input(format!("cannot reach the in-process scheduler: {e}")))?
        }
    };
    // upgrade_for_ballista replaced the function maps: register ours again.
    register_functions(&mut ctx)?;
    Ok(ctx)
}

fn free_port() -> Result<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Error::Input(format!("no free port on 127.0.0.1: {e}")))
}

/// A scheduler and one executor in this process, the same code as `groundcheck
/// scheduler` and `groundcheck executor` (Ballista's own standalone mode polls for tasks
/// and was ~20x slower on the labels query). Returns the scheduler's URL.
async fn standalone() -> Result<String> {
    let bind: SocketAddr = format!("127.0.0.1:{}", free_port()?)
        .parse()
        .expect("an address");
    tokio::spawn(async move {
        if let Err(e) = scheduler(bind, 180).await {
            eprintln!("error: standalone scheduler: {e}");
        }
    });
    // Ready when it accepts connections (bounded: 200 x 50 ms).
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(bind).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let options = ExecutorOptions {
        bind_host: "127.0.0.1".into(),
        external_host: Some("127.0.0.1".into()),
        port: free_port()?,
        grpc_port: free_port()?,
        scheduler_host: "127.0.0.1".into(),
        scheduler_port: bind.port(),
        work_dir: None,
        vcores: std::thread::available_parallelism().map_or(2, |n| n.get()),
        heartbeat_s: 60,
        memory_pool_bytes: None,
    };
    tokio::spawn(async move {
        if let Err(e) = executor(options).await {
            eprintln!("error: standalone executor: {e}");
        }
    });
    Ok(format!("df://{bind}"))
}

/// `groundcheck scheduler`: serves until killed.
pub async fn scheduler(bind: SocketAddr, executor_timeout_s: u64) -> Result<()> {
    use ballista_scheduler::cluster::BallistaCluster;
    use ballista_scheduler::config::SchedulerConfig;
    let config = SchedulerConfig {
        bind_host: bind.ip().to_string(),
        bind_port: bind.port(),
        executor_timeout_seconds: executor_timeout_s,
        expire_dead_executor_interval_seconds: (executor_timeout_s / 2).clamp(1, 15),
        no_executors_grace_period_seconds: executor_timeout_s,
        ..SchedulerConfig::default()
    }
    .with_override_config_producer(Arc::new(config_producer))
    .with_override_session_builder(Arc::new(session_state));
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(|e| Error::Input(format!("scheduler: {e}")))?;
    ballista_scheduler::scheduler_process::start_server(cluster, bind, Arc::new(config))
        .await
        .map_err(|e| Error::Input(format!("scheduler on {bind}: {e}")))
}

fn config_producer() -> SessionConfig {
    with_our_ballista_options(crate::engine::context::apply_options(
        <SessionConfig as ballista_core::extension::SessionConfigExt>::new_with_ballista(),
    ))
}

/// Ballista's adaptive planner re-plans after every stage; on the labels query (~70
/// scans of the steps table joined per task) it made thousands of stages and never
/// finished. The static planner cuts the plan once.
fn with_our_ballista_options(config: SessionConfig) -> SessionConfig {
    config.set_bool(
        ballista_core::config::BALLISTA_ADAPTIVE_PLANNER_ENABLED,
        false,
    )
}

/// What `groundcheck executor` needs.
pub struct ExecutorOptions {
    pub bind_host: String,
    pub external_host: Option<String>,
    pub port: u16,
    pub grpc_port: u16,
    pub scheduler_host: String,
    pub scheduler_port: u16,
    pub work_dir: Option<String>,
    pub vcores: usize,
    pub heartbeat_s: u64,
    pub memory_pool_bytes: Option<u64>,
}

/// `groundcheck executor`: serves until killed.
pub async fn executor(o: ExecutorOptions) -> Result<()> {
    use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
    let state = session_state(config_producer())?;
    let config = ExecutorProcessConfig {
        bind_host: o.bind_host,
        external_host: o.external_host,
        port: o.port,
        grpc_port: o.grpc_port,
        scheduler_host: o.scheduler_host,
        scheduler_port: o.scheduler_port,
        work_dir: o.work_dir,
        vcores: o.vcores,
        executor_heartbeat_interval_seconds: o.heartbeat_s,
        memory_pool_size: o.memory_pool_bytes,
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(&state))),
        override_runtime_producer: Some(Arc::new(|_: &SessionConfig| runtime())),
        override_config_producer: Some(Arc::new(config_producer)),
        ..ExecutorProcessConfig::default()
    };
    start_executor_process(Arc::new(config))
        .await
        .map_err(|e| Error::Input(format!("executor: {e}")))
}
