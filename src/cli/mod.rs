//! Command line: one module per verb, each with an `Args` struct and `run`.
//!
//! Exit codes: 0 ok, 1 a finding the user asked to fail on, 2 an error. A closed pipe
//! (`| head`) is not an error.

mod anomalies;
mod canary;
mod cluster;
mod collect;
mod common;
mod drift;
mod functions;
mod gateway;
mod import;
mod ingest;
mod label;
mod replay;
mod report;
mod review;
mod run;
mod sample;
mod snapshot;
mod sql;
mod suite;
mod synth;
mod tables;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Scores how agents use MCP tools, and watches the tools drift, as SQL over traces.
#[derive(Debug, Parser)]
#[command(name = "groundcheck", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,

    /// Say more: which tables were looked for and found empty.
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    Anomalies(anomalies::Args),
    Canary(canary::Args),
    Collect(collect::Args),
    Drift(drift::Args),
    Executor(cluster::ExecutorArgs),
    Functions(functions::Args),
    Gateway(gateway::Args),
    Gen(synth::Args),
    Import(import::Args),
    Ingest(ingest::Args),
    Label(label::Args),
    Replay(replay::Args),
    Report(report::Args),
    Review(review::Args),
    Run(run::Args),
    Sample(sample::Args),
    Scheduler(cluster::SchedulerArgs),
    Snapshot(snapshot::Args),
    Sql(sql::Args),
    Suite(suite::Args),
    Tables(tables::Args),
}

/// With `--out URL`: the verb writes into a local staging folder, uploaded when it ends
/// well (src/remote_out.rs).
fn stage(out: &mut std::path::PathBuf) -> anyhow::Result<Option<groundcheck::remote_out::Staging>> {
    if !groundcheck::remote_out::is_remote(out) {
        return Ok(None);
    }
    let staging = groundcheck::remote_out::Staging::new(out)?;
    *out = staging.local.clone();
    Ok(Some(staging))
}

/// Uploads what a staged verb wrote when it succeeded (exit 0 or 1: findings, not
/// failures); nothing otherwise.
async fn unstage(
    staging: Option<groundcheck::remote_out::Staging>,
    code: anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    let Some(staging) = staging else {
        return code;
    };
    let code = code?;
    if code == ExitCode::from(2) {
        return Ok(code);
    }
    let sent = staging.upload().await?;
    if sent.is_empty() {
        anyhow::bail!(groundcheck::Error::Input(
            "the verb wrote no output file to upload".to_string()
        ));
    }
    eprintln!("uploaded {} file(s): {}", sent.len(), sent.join(", "));
    Ok(code)
}

pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    groundcheck::session::VERBOSE.store(cli.verbose, std::sync::atomic::Ordering::Relaxed);
    let mut command = cli.command;
    let staging = match &mut command {
        Command::Ingest(a) => stage(&mut a.output.out)?,
        Command::Label(a) => stage(&mut a.output.out)?,
        Command::Report(a) => stage(&mut a.output.out)?,
        Command::Sample(a) => stage(&mut a.output.out)?,
        Command::Replay(a) => stage(&mut a.output.out)?,
        Command::Sql(a) => stage(&mut a.out.out)?,
        Command::Import(a) => stage(&mut a.out)?,
        Command::Snapshot(a) => stage(&mut a.out)?,
        Command::Gen(a) => stage(&mut a.out)?,
        Command::Anomalies(a) => common::local_out(&a.output.out, "anomalies").map(|_| None)?,
        Command::Canary(a) => common::local_out(&a.out, "canary").map(|_| None)?,
        Command::Collect(a) => common::local_out(&a.out, "collect").map(|_| None)?,
        Command::Gateway(a) => common::local_out(&a.out, "gateway").map(|_| None)?,
        Command::Run(a) => common::local_out(&a.out, "run").map(|_| None)?,
        _ => None,
    };
    let code = match command {
        Command::Anomalies(a) => anomalies::run(a).await,
        Command::Canary(a) => canary::run(a).await,
        Command::Collect(a) => collect::run(a).await,
        Command::Drift(a) => drift::run(a).await,
        Command::Executor(a) => cluster::run_executor(a).await,
        Command::Functions(a) => functions::run(a).await,
        Command::Gateway(a) => gateway::run(a).await,
        Command::Gen(a) => synth::run(a).await,
        Command::Import(a) => import::run(a).await,
        Command::Ingest(a) => ingest::run(a).await,
        Command::Label(a) => label::run(a).await,
        Command::Replay(a) => replay::run(a).await,
        Command::Report(a) => report::run(a).await,
        Command::Review(a) => review::run(a).await,
        Command::Run(a) => run::run(a).await,
        Command::Sample(a) => sample::run(a).await,
        Command::Scheduler(a) => cluster::run_scheduler(a).await,
        Command::Snapshot(a) => snapshot::run(a).await,
        Command::Sql(a) => sql::run(a).await,
        Command::Suite(a) => suite::run(a).await,
        Command::Tables(a) => tables::run(a).await,
    };
    unstage(staging, code).await
}
