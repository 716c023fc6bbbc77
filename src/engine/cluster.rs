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
use std::time::{Duration, Instant};

use ballista::prelude::SessionContextExt;
use ballista_core::registry::BallistaFunctionRegistry;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use crate::engine::context::{Cluster, Patience};
use crate::engine::context::{register_functions, runtime, session_state};
use crate::error::{Error, Result};

/// A client context whose queries run on `cluster`. The first one a process makes starts
/// the watch that ends the verb when the cluster cannot finish (`stopped`).
pub async fn context(
    cluster: &Cluster,
    partitions: Option<usize>,
    patience: Patience,
) -> Result<SessionContext> {
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
            .map_err(|e| {
                Error::Upstream(format!("cannot reach the Ballista scheduler {url}: {e}"))
            })?,
        Cluster::Standalone => {
            let url = standalone().await?;
            SessionContext::remote_with_state(&url, state)
                .await
                .map_err(|e| {
                    Error::Upstream(format!("cannot reach the in-process scheduler: {e}"))
                })?
        }
    };
    // upgrade_for_ballista replaced the function maps: register ours again.
    register_functions(&mut ctx)?;
    if WATCHING.set(()).is_ok() {
        let cluster = cluster.clone();
        tokio::spawn(async move {
            let why = watch(&cluster, patience).await;
            let _ = STOP_REASON.set(why.to_string());
            STOP.notify_one();
        });
    }
    Ok(ctx)
}

static WATCHING: std::sync::OnceLock<()> = std::sync::OnceLock::new();
static STOP: tokio::sync::Notify = tokio::sync::Notify::const_new();
static STOP_REASON: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Resolves when this process's cluster work cannot finish (no live executor for too
/// long, or past its total time), with the sentence that says so; never before a cluster
/// context was made. The binary races each verb against it.
pub async fn stopped() -> Error {
    STOP.notified().await;
    Error::Upstream(STOP_REASON.get().cloned().unwrap_or_default())
}

fn free_port() -> Result<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Error::Upstream(format!("no free port on 127.0.0.1: {e}")))
}

/// A scheduler and one executor in this process, the same code as `groundcheck
/// scheduler` and `groundcheck executor` (Ballista's own standalone mode polls for tasks
/// and was ~20x slower on the labels query). Returns the scheduler's URL.
async fn standalone() -> Result<String> {
    let bind: SocketAddr = format!("127.0.0.1:{}", free_port()?)
        .parse()
        .expect("an address");
    tokio::spawn(async move {
        if let Err(e) = scheduler(bind, SchedulerLimits::default()).await {
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

/// How long the scheduler waits on executors (`groundcheck scheduler`'s flags).
#[derive(Debug, Clone, Copy)]
pub struct SchedulerLimits {
    /// Seconds without a heartbeat before an executor is taken for dead.
    pub executor_timeout_s: u64,
    /// Seconds a running job waits for an executor to (re)register after the last one
    /// was lost, before the scheduler fails it.
    pub no_executor_s: u64,
}

impl Default for SchedulerLimits {
    /// Sized for a loaded machine: planning the labels plan took 46 s on a busy 2-core
    /// machine, and the scheduler answers no heartbeat while it plans.
    fn default() -> Self {
        SchedulerLimits {
            executor_timeout_s: 180,
            no_executor_s: 60,
        }
    }
}

/// `groundcheck scheduler`: serves until killed.
pub async fn scheduler(bind: SocketAddr, limits: SchedulerLimits) -> Result<()> {
    use ballista_scheduler::cluster::BallistaCluster;
    use ballista_scheduler::config::SchedulerConfig;
    let config = SchedulerConfig {
        bind_host: bind.ip().to_string(),
        bind_port: bind.port(),
        executor_timeout_seconds: limits.executor_timeout_s,
        expire_dead_executor_interval_seconds: (limits.executor_timeout_s / 2).clamp(1, 15),
        no_executors_grace_period_seconds: limits.no_executor_s,
        ..SchedulerConfig::default()
    }
    .with_override_config_producer(Arc::new(config_producer))
    .with_override_session_builder(Arc::new(session_state));
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(|e| Error::Upstream(format!("scheduler: {e}")))?;
    ballista_scheduler::scheduler_process::start_server(cluster, bind, Arc::new(config))
        .await
        .map_err(|e| Error::Upstream(format!("scheduler on {bind}: {e}")))
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

/// `groundcheck executor`: serves until killed. When the scheduler stops it (it took
/// the executor for dead: heartbeats late on a loaded machine), it registers again under a
/// new id instead of leaving the cluster one executor short.
pub async fn executor(o: ExecutorOptions) -> Result<()> {
    use ballista_executor::executor_process::start_executor_process;
    use std::sync::atomic::{AtomicBool, Ordering};
    // A signal ends the executor for good; a stop from the scheduler does not. Ballista
    // listens for the signals itself and returns Ok either way, so note them here too.
    let signalled = Arc::new(AtomicBool::new(false));
    {
        let signalled = signalled.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{SignalKind, signal};
            if let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                signalled.store(true, Ordering::SeqCst);
            }
        });
    }
    loop {
        start_executor_process(Arc::new(executor_config(&o)?))
            .await
            .map_err(|e| Error::Upstream(format!("executor: {e}")))?;
        // Ballista returns once its servers have shut down; a signal may still be on its
        // way to our listener.
        tokio::time::sleep(Duration::from_millis(200)).await;
        if signalled.load(Ordering::SeqCst) {
            return Ok(());
        }
        log::warn!("the scheduler stopped this executor (it missed heartbeats); registering again");
        // Ballista marks the process as terminating for good; this process goes on.
        ballista_executor::executor_server::TERMINATING.store(false, Ordering::Release);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// One executor's Ballista configuration; each call has a new executor id.
fn executor_config(
    o: &ExecutorOptions,
) -> Result<ballista_executor::executor_process::ExecutorProcessConfig> {
    use ballista_executor::executor_process::ExecutorProcessConfig;
    let state = session_state(config_producer())?;
    Ok(ExecutorProcessConfig {
        bind_host: o.bind_host.clone(),
        external_host: o.external_host.clone(),
        port: o.port,
        grpc_port: o.grpc_port,
        scheduler_host: o.scheduler_host.clone(),
        scheduler_port: o.scheduler_port,
        work_dir: o.work_dir.clone(),
        vcores: o.vcores,
        executor_heartbeat_interval_seconds: o.heartbeat_s,
        memory_pool_size: o.memory_pool_bytes,
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(&state))),
        override_runtime_producer: Some(Arc::new(|_: &SessionConfig| runtime())),
        override_config_producer: Some(Arc::new(config_producer)),
        ..ExecutorProcessConfig::default()
    })
}

/// Runs beside cluster work and returns the error that ends it: the scheduler has
/// reported no live executor for `patience.no_executor` (asked every two seconds on its
/// `/readyz`, which Ballista serves on the scheduler's port), or `patience.total` has
/// passed. A scheduler that does not answer (busy planning) counts as neither.
async fn watch(cluster: &Cluster, patience: Patience) -> Error {
    let started = Instant::now();
    let deadline = tokio::time::sleep(patience.total);
    tokio::pin!(deadline);
    let addr = match cluster {
        Cluster::Remote(url) => Some(url.trim_start_matches("df://").to_string()),
        // In this process: the executor cannot be lost apart from the verb.
        Cluster::Standalone => None,
    };
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .ok();
    let mut none_since: Option<Instant> = None;
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    loop {
        tokio::select! {
            _ = &mut deadline => {
                return Error::Upstream(format!(
                    "the cluster job did not finish within {} s (--cluster-timeout){}; \
                     the scheduler's log says where it stands",
                    patience.total.as_secs(),
                    addr.as_deref().map(|a| format!(" on the scheduler at {a}")).unwrap_or_default()
                ));
            }
            _ = tick.tick() => {}
        }
        let (Some(addr), Some(client)) = (&addr, &client) else {
            continue;
        };
        match live_executors(client, addr).await {
            Some(0) => {
                let since = *none_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= patience.no_executor {
                    return Error::Upstream(format!(
                        "no executor alive on the Ballista scheduler at {addr} for {} s \
                         (it counts 0 live executors, {} s into the job): check that \
                         `groundcheck executor --scheduler {addr}` processes run, reach the \
                         scheduler and are not stopped (--cluster-wait sets this limit)",
                        since.elapsed().as_secs(),
                        started.elapsed().as_secs()
                    ));
                }
            }
            Some(_) => none_since = None,
            None => {}
        }
    }
}

/// The live executors the scheduler at `addr` counts: `/readyz` answers `ready: N
/// executors registered` or `not ready: N/M executors registered`. None when it does not
/// answer.
async fn live_executors(client: &reqwest::Client, addr: &str) -> Option<u64> {
    let body = client
        .get(format!("http://{addr}/readyz"))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    let n = body.split_once(": ")?.1;
    n.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}
