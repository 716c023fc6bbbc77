//! `groundcheck replay`: recorded calls against a candidate tool schema.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::drift::replay::{self, Candidate};

use super::common::{DataArgs, OutArgs, finish};
use super::print::outln;

/// Check every recorded tool call in --data against a candidate schema, as if it had been
/// sent after the change (seed 002: turn a "likely breaking" diff into evidence). The
/// candidate is any snapshot groundcheck reads: stored tool_snapshots rows (JSONL,
/// Parquet, a folder, a glob, s3://; PATH@CAPTURED_AT), a tools/list .json, or a live
/// server (stdio:CMD, an http(s) URL). Prints, per tool the candidate defines, how many
/// recorded calls would fail and why (queries/replay_summary.sql). Exit 2 when no
/// recorded call is to the candidate's server.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The candidate snapshot (stored rows, a tools/list .json, stdio:CMD or a URL).
    #[arg(long, value_name = "SNAPSHOT")]
    candidate: String,

    /// The server the recorded calls were made to, when the candidate does not name it
    /// (a tools/list file) or holds several (stored rows).
    #[arg(long, value_name = "NAME")]
    server: Option<String>,

    /// Seconds a live candidate server may take to list its tools.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = super::common::parse_timeout)]
    timeout: std::time::Duration,

    /// Exit with code 1 when any recorded call would fail under the candidate.
    #[arg(long)]
    fail_on_break: bool,

    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    pub(crate) output: OutArgs,
    /// Give a stdio server this environment variable too (repeatable; `PREFIX*` for a
    /// family, `*` for all). By default it gets only PATH, HOME, locale, time zone,
    /// proxies, certificates and GROUNDCHECK_*: not cloud credentials or tokens.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    let timeout = args.timeout;
    let candidate = Candidate::load(
        &args.candidate,
        args.server.as_deref(),
        timeout,
        &args.pass_env,
    )
    .await
    .with_context(|| format!("--candidate {}", args.candidate));
    let tools = match candidate {
        Ok(c) => replay::run(&session, &args.input.data, c).await,
        Err(e) => {
            finish(&session, &args.output.out, true)?;
            return Err(e);
        }
    };
    finish(&session, &args.output.out, true)?;
    let tools = tools?;
    for t in &tools {
        outln!("{}", t.line(true));
    }
    let broken = tools.iter().any(|t| t.failing > 0);
    Ok(if broken && args.fail_on_break {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
