//! `groundcheck scheduler` and `groundcheck executor`: a Ballista cluster that knows every
//! groundcheck function (the stock Ballista binaries do not).

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::engine::cluster::{ExecutorOptions, SchedulerLimits, executor, scheduler};

/// Start a Ballista scheduler with every groundcheck function and the S3 store from the
/// AWS environment. Verbs that run SQL use it with `--cluster df://HOST:PORT`. Serves
/// until killed. See docs/cluster.md.
#[derive(Debug, ClapArgs)]
pub struct SchedulerArgs {
    /// Address to listen on (clients and executors connect here).
    #[arg(long, default_value = "127.0.0.1:50050")]
    bind: SocketAddr,

    /// Seconds without a heartbeat after which an executor is taken for dead and its
    /// tasks are run again elsewhere. The scheduler answers no heartbeat while it plans a
    /// job (46 s for the labels plan on a loaded 2-core machine): keep this well above.
    #[arg(long, default_value_t = SchedulerLimits::default().executor_timeout_s)]
    executor_timeout: u64,

    /// Seconds a running job waits for an executor to register (again) after the last
    /// one was lost; then the scheduler fails the job and the client says so.
    #[arg(long, default_value_t = SchedulerLimits::default().no_executor_s)]
    no_executor_grace: u64,
}

/// Start a Ballista executor with every groundcheck function and the S3 store from the
/// AWS environment; it registers with the scheduler and runs tasks until killed.
#[derive(Debug, ClapArgs)]
pub struct ExecutorArgs {
    /// The scheduler, HOST:PORT.
    #[arg(long, default_value = "localhost:50050")]
    scheduler: String,

    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    bind_host: String,

    /// The host name other executors and the client reach this one by (default: the
    /// bind host).
    #[arg(long)]
    external_host: Option<String>,

    /// Arrow Flight port (shuffle data is fetched here).
    #[arg(long, default_value_t = 50051)]
    port: u16,

    /// gRPC port (the scheduler sends tasks here).
    #[arg(long, default_value_t = 50052)]
    grpc_port: u16,

    /// Folder for shuffle files (default: a temporary folder).
    #[arg(long)]
    work_dir: Option<String>,

    /// Tasks run at once (default: the number of cores).
    #[arg(long)]
    concurrent_tasks: Option<usize>,

    /// Seconds between heartbeats to the scheduler.
    #[arg(long, default_value_t = 60)]
    heartbeat: u64,

    /// Memory for all tasks together, in MiB: each task gets a spilling pool of its
    /// share (default: no limit).
    #[arg(long, value_name = "MIB")]
    memory_pool: Option<u64>,
}

pub async fn run_scheduler(args: SchedulerArgs) -> anyhow::Result<ExitCode> {
    eprintln!("groundcheck scheduler: listening on {}", args.bind);
    scheduler(
        args.bind,
        SchedulerLimits {
            executor_timeout_s: args.executor_timeout.max(1),
            no_executor_s: args.no_executor_grace,
        },
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}

pub async fn run_executor(args: ExecutorArgs) -> anyhow::Result<ExitCode> {
    let (host, port) = args
        .scheduler
        .rsplit_once(':')
        .context("--scheduler: expected HOST:PORT")?;
    let port: u16 = port
        .parse()
        .with_context(|| format!("--scheduler {}: not a port", args.scheduler))?;
    eprintln!(
        "groundcheck executor: flight {}:{}, grpc {}:{}, scheduler {}",
        args.bind_host, args.port, args.bind_host, args.grpc_port, args.scheduler
    );
    executor(ExecutorOptions {
        external_host: args.external_host.or(Some(args.bind_host.clone())),
        bind_host: args.bind_host,
        port: args.port,
        grpc_port: args.grpc_port,
        scheduler_host: host.to_string(),
        scheduler_port: port,
        work_dir: args.work_dir,
        vcores: args
            .concurrent_tasks
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        heartbeat_s: args.heartbeat,
        memory_pool_bytes: args.memory_pool.map(|m| m * 1024 * 1024),
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}
