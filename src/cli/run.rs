//! `groundcheck run`: the runner. Each case's question goes to the user's agent, as the
//! case's user, through the gateway; the traces come out ready for `label`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::print::outln;
use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::mcp::gateway::OnBlock;
use groundcheck::mcp::runner::{Options, Outcome, parse_cases, run_case};

/// Run your agent once per case against the server under test (seed 000's runner). The
/// agent (`--agent CMD`, run with `sh -c`) gets the case as one JSON line on stdin and as
/// GROUNDCHECK_* environment variables, starts GROUNDCHECK_MCP_COMMAND as its stdio MCP
/// server (that is `groundcheck gateway` in front of the server under test, recording as
/// the case's as_user), and prints its answer last on stdout: plain text or
/// {"answer", "usage": {"model", "input_tokens", "output_tokens", "usd"}, "steps"}. Writes
/// OUT/traces/RUN_ID.parquet (steps: the question, every tool call, the answer with its
/// usage) and OUT/run/RUN_ID/summary.jsonl; the gateway's records and each agent's stderr
/// are in OUT/run/RUN_ID/. Exits 1 when an agent failed or timed out. See docs/gateway.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    target: super::gateway::Target,

    /// Cases to run (cases.jsonl: case_id, question, as_user, user_role are read).
    #[arg(long, value_name = "FILE")]
    cases: PathBuf,

    /// The agent command.
    #[arg(long, value_name = "CMD")]
    agent: String,

    /// run_id of the traces (default: run-TIME).
    #[arg(long)]
    run_id: Option<String>,

    /// Server name to record (default: the name the server gives).
    #[arg(long)]
    server: Option<String>,

    /// Cases run at once.
    #[arg(long, short, default_value_t = 1)]
    jobs: usize,

    /// Seconds one case may take; then the agent, its gateway and server are killed.
    #[arg(long, default_value = "300", value_name = "SECS", value_parser = super::common::parse_timeout)]
    case_timeout: Duration,

    /// Seconds one request may wait for the server (the gateway's --call-timeout).
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = super::common::parse_timeout)]
    call_timeout: Duration,

    /// The gateway's --pin: refuse tools whose drift since this snapshot is blocking.
    #[arg(long, value_name = "SNAPSHOT")]
    pin: Option<String>,

    /// The gateway's --pin-server.
    #[arg(long, value_name = "NAME")]
    pin_server: Option<String>,

    /// Identity of the credential the server is called with (steps.credential_subject;
    /// a server that says in a result's `_meta` whom it ran the call as is recorded so).
    #[arg(long, value_name = "NAME")]
    credential_subject: Option<String>,

    /// The gateway's --on-block.
    #[arg(long, value_enum, default_value_t = OnBlock::Error)]
    on_block: OnBlock,

    /// Give the agent and the MCP server this environment variable too (repeatable;
    /// `PREFIX*` for a family, `*` for all; an agent's model API key, say). By default
    /// they get only PATH, HOME, locale, time zone, proxies, certificates and
    /// GROUNDCHECK_*.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,

    /// Folder for outputs.
    #[arg(long, default_value = "out")]
    pub(crate) out: PathBuf,

    /// No per-case lines.
    #[arg(long, short)]
    quiet: bool,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let file = args.cases.display().to_string();
    let text = std::fs::read_to_string(&args.cases)
        .with_context(|| format!("cannot read --cases {file}"))?;
    let cases = parse_cases(&file, &text)?;
    if cases.is_empty() {
        anyhow::bail!("{file}: no cases");
    }
    let run_id = args
        .run_id
        .clone()
        .unwrap_or_else(|| format!("run-{}", chrono::Utc::now().format("%Y%m%dT%H%M%SZ")));
    let mut gateway_args = vec![
        "--call-timeout".to_string(),
        args.call_timeout.as_secs_f64().to_string(),
        "--on-block".into(),
        match args.on_block {
            OnBlock::Error => "error".into(),
            OnBlock::Hide => "hide".into(),
        },
    ];
    if let Some(p) = &args.pin {
        // The agent may run elsewhere: a relative pin is made absolute.
        let abs = std::path::Path::new(p);
        let p = if abs.is_relative() && abs.exists() {
            std::env::current_dir()?.join(abs).display().to_string()
        } else {
            p.clone()
        };
        gateway_args.extend(["--pin".into(), p]);
    }
    if let Some(s) = &args.pin_server {
        gateway_args.extend(["--pin-server".into(), s.clone()]);
    }
    if let Some(c) = &args.credential_subject {
        gateway_args.extend(["--credential-subject".into(), c.clone()]);
    }
    for p in &args.pass_env {
        gateway_args.extend(["--pass-env".into(), p.clone()]);
    }
    args.target.source()?;
    match &args.target.upstream {
        Some(u) => gateway_args.extend(["--upstream".into(), u.clone()]),
        None => {
            gateway_args.push("--".into());
            gateway_args.extend(args.target.command.iter().cloned());
        }
    }
    let out = if args.out.is_relative() {
        std::env::current_dir()?.join(&args.out)
    } else {
        args.out.clone()
    };
    let opts = Arc::new(Options {
        agent: args.agent.clone(),
        run_id: run_id.clone(),
        out: out.clone(),
        gateway_args,
        case_timeout: args.case_timeout,
        server: args.server.clone(),
        pass_env: args.pass_env.clone(),
    });
    let jobs = Arc::new(tokio::sync::Semaphore::new(args.jobs.max(1)));
    let mut tasks = Vec::new();
    for case in cases {
        let (opts, jobs) = (Arc::clone(&opts), Arc::clone(&jobs));
        tasks.push(tokio::spawn(async move {
            let _permit = jobs.acquire_owned().await;
            run_case(&opts, &case).await
        }));
    }
    let mut outcomes: Vec<Outcome> = Vec::new();
    for t in tasks {
        let o = t.await.context("a case's task failed")??;
        if !args.quiet {
            outln!(
                "{:<8} {}  {} tool call(s), {} refused{}",
                if o.ok() { "ok" } else { "FAILED" },
                o.case_id,
                o.tool_calls,
                o.refused,
                if o.ok() {
                    String::new()
                } else {
                    format!(": {}", o.status)
                }
            );
        }
        outcomes.push(o);
    }
    let (trace, steps) = groundcheck::mcp::runner::write(&out, &run_id, &outcomes)?;
    let failed = outcomes.iter().filter(|o| !o.ok()).count();
    outln!(
        "{} case(s), {} failed, {} step(s) -> {}",
        outcomes.len(),
        failed,
        steps,
        trace.display()
    );
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
