//! `groundcheck gateway`: an MCP server to the agent (stdio), a client to the real server.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::drift::{Ignore, Override};
use groundcheck::mcp::gateway::record::Identity;
use groundcheck::mcp::gateway::{Config, OnBlock, serve};

/// Put groundcheck between an agent and an MCP server (seed 002's validation layer). The
/// agent starts `groundcheck gateway -- SERVER CMD` as its stdio MCP server. Every
/// message passes through in order and unchanged, except: tools/calls whose arguments do
/// not match the tool's current inputSchema are answered with "Schema mismatch: expected
/// parameter 'search_query', found 'query'. Tool blocked." (one retry; a second mismatch
/// in a row disables the tool for the session); with --pin, tools whose drift since the
/// pin is blocking are refused (or hidden); a server that hangs or dies gets the agent a
/// JSON-RPC error within --call-timeout. Every call is recorded as trace steps
/// (OUT/gateway/TRACE.steps.jsonl as it happens, OUT/traces/TRACE.parquet at the end),
/// every message in OUT/gateway/TRACE.messages.jsonl, refusals, drift and failures in
/// OUT/gateway/TRACE.events.jsonl. See docs/gateway.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    target: Target,

    /// The snapshot the agent was built against: stored rows (PATH or PATH@CAPTURED_AT),
    /// a tools/list .json file, or stdio:CMD / URL of a reference server.
    #[arg(long, value_name = "SNAPSHOT")]
    pin: Option<String>,

    /// The server's name in stored snapshot rows that hold several servers.
    #[arg(long, value_name = "NAME")]
    pin_server: Option<String>,

    /// Change a drift rule's severity and action: RULE=SEVERITY[:ACTION]. Repeatable.
    #[arg(long = "override", value_name = "RULE=SEVERITY[:ACTION]", value_parser = Override::parse)]
    overrides: Vec<Override>,

    /// Drift changes to accept (lines of RULE, FINGERPRINT or RULE FINGERPRINT).
    #[arg(long, value_name = "FILE")]
    ignore: Option<PathBuf>,

    /// What to do with a tool whose drift is blocking.
    #[arg(long, value_enum, default_value_t = OnBlock::Error)]
    on_block: OnBlock,

    /// Let parameters the schema does not name through (they are refused by default).
    #[arg(long)]
    allow_unknown_params: bool,

    /// The tool versions this agent was built for, as seed 002's client declares them:
    /// TOOL=RANGE or *=RANGE (semver, e.g. `search=^2.0.0`), repeatable. A tool whose
    /// declared version (`version`, `schema_version`, `_meta.version`, fastmcp's
    /// `_meta.fastmcp.version`) is outside its range is refused: "schema version mismatch,
    /// expected ^2.0.0, got 3.0.0". Checked on connect and on every re-list.
    #[arg(long, value_name = "TOOL=RANGE", value_parser = parse_range)]
    client_range: Vec<(String, String)>,

    /// Re-read the server's tools/list every SECS seconds (the new schemas are judged and
    /// checked as after list_changed). By default every 60 seconds for a server that does
    /// not say it sends list_changed (`capabilities.tools.listChanged`), and never for one
    /// that does; given, for every server; 0 turns it off.
    #[arg(long, value_name = "SECS", value_parser = super::common::parse_duration)]
    relist_every: Option<Duration>,

    /// Seconds a request may wait for the server; each progress notification for it
    /// starts the wait again.
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = super::common::parse_timeout)]
    call_timeout: Duration,

    /// The end user the calls are made for (steps.as_user).
    #[arg(long, env = "GROUNDCHECK_AS_USER")]
    as_user: Option<String>,

    /// That user's role (steps.user_role).
    #[arg(long, env = "GROUNDCHECK_USER_ROLE")]
    user_role: Option<String>,

    /// Identity of the credential the server is called with (steps.credential_subject); a
    /// server that says in a result's `_meta` (`credential_subject` or
    /// `groundcheck/credential_subject`) whom it ran the call as is recorded so.
    #[arg(long)]
    credential_subject: Option<String>,

    /// Server name to record (default: the name in the server's initialize answer).
    #[arg(long)]
    server: Option<String>,

    /// run_id to record.
    #[arg(long, default_value = "gateway")]
    run_id: String,

    /// trace_id to record (default: gw-TIME-PID).
    #[arg(long, env = "GROUNDCHECK_TRACE_ID")]
    trace_id: Option<String>,

    /// case_id to record (set by `groundcheck run`).
    #[arg(long, env = "GROUNDCHECK_CASE_ID")]
    case_id: Option<String>,

    /// Give the server this environment variable too (repeatable; `PREFIX*` for a family,
    /// `*` for all). By default the server gets only PATH, HOME, locale, time zone,
    /// proxies, certificates and GROUNDCHECK_*: not cloud credentials or tokens.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,

    /// Folder for the records.
    #[arg(long, default_value = "out")]
    pub(crate) out: PathBuf,

    /// Serve agents over streamable HTTP at ADDR (e.g. 127.0.0.1:8931; port 0 picks one)
    /// instead of stdio: endpoint http://ADDR/mcp, one gateway session (server
    /// connection, guard, trace) per agent session, and per sessionless 2026-07-28 agent
    /// (known by its Groundcheck-Agent header, else its client info and address).
    /// The address is printed on stderr; SIGINT/SIGTERM ends every session and exits.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,

    /// With --listen: end a session (and its server) that no agent used for SECS.
    #[arg(
        long,
        default_value = "900",
        value_name = "SECS", value_parser = super::common::parse_timeout,
        requires = "listen"
    )]
    session_idle: Duration,

    /// With --listen: close a request's SSE stream after SECS without its answer, with a
    /// retry hint; the agent resumes it with Last-Event-ID (2025-11-25's SSE polling, for
    /// proxies that cut long responses). Not done on 2026-07-28 streams, where closing a
    /// stream cancels its request.
    #[arg(long, value_name = "SECS", value_parser = super::common::parse_timeout, requires = "listen")]
    sse_retry: Option<Duration>,

    /// With --listen: a client's request headers must be in within SECS, and each piece
    /// of its body within SECS of the one before (else 408); the connection then closes.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = super::common::parse_timeout, requires = "listen")]
    read_timeout: Duration,

    /// With --listen: sessions open at once at most; an initialize beyond it is refused
    /// with 503 and a sentence (idle sessions close after --session-idle).
    #[arg(long, default_value_t = 1000, value_name = "N", requires = "listen")]
    max_sessions: usize,

    /// With --listen: put every sessionless (2026-07-28) agent in one gateway session,
    /// so that they share retry counts, disabled tools and one trace (by default each
    /// agent has its own).
    #[arg(long, requires = "listen")]
    shared_stateless: bool,

    /// Do not print drift, disabled tools and server failures on stderr (they are still
    /// in the events file).
    #[arg(long, short)]
    quiet: bool,
}

/// The MCP server behind the gateway (shared with `groundcheck run`).
#[derive(Debug, ClapArgs)]
pub struct Target {
    /// The server command and its arguments, spoken to over stdio.
    #[arg(last = true, value_name = "CMD", required_unless_present = "upstream")]
    pub command: Vec<String>,

    /// A streamable-HTTP server URL instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub upstream: Option<String>,
}

impl Target {
    /// `stdio:CMD` or the URL, checked.
    pub fn source(&self) -> anyhow::Result<String> {
        Ok(match &self.upstream {
            Some(u) if u.starts_with("http://") || u.starts_with("https://") => u.clone(),
            Some(u) => anyhow::bail!("--upstream {u}: expected an http(s):// URL"),
            None => groundcheck::drift::snapshot::stdio_source(&self.command),
        })
    }
}

fn parse_range(s: &str) -> Result<(String, String), String> {
    let (tool, range) = s
        .split_once('=')
        .ok_or_else(|| format!("expected TOOL=RANGE (or *=RANGE), got {s}"))?;
    groundcheck_udfs::changes::semver::allows(range.trim(), "0.0.0")?;
    Ok((tool.trim().to_string(), range.trim().to_string()))
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let upstream = args.target.source()?;
    let timeout = args.call_timeout;
    let pin = match &args.pin {
        Some(p) => Some(
            groundcheck::drift::snapshot::load(
                p,
                args.pin_server.as_deref(),
                timeout,
                &args.pass_env,
            )
            .await
            .with_context(|| format!("--pin {p}"))?,
        ),
        None => None,
    };
    let ignore = Ignore::read(args.ignore.as_deref())?;
    let trace_id = args.trace_id.clone().unwrap_or_else(|| {
        format!(
            "gw-{}-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            std::process::id()
        )
    });
    let cfg = Config {
        upstream,
        pin,
        overrides: args.overrides,
        ignore,
        on_block: args.on_block,
        identity: Identity {
            run_id: args.run_id,
            server: args.server,
            trace_id,
            case_id: args.case_id,
            as_user: args.as_user,
            user_role: args.user_role,
            credential_subject: args.credential_subject,
        },
        out: args.out,
        call_timeout: timeout,
        strict: !args.allow_unknown_params,
        quiet: args.quiet,
        client_ranges: args.client_range,
        relist_every: match args.relist_every {
            Some(d) if d.is_zero() => None,
            // Not faster than 20 times a second, whatever was asked: the server's to serve.
            Some(d) => Some(d.max(Duration::from_millis(50))),
            None => Some(Duration::from_secs(60)),
        },
        relist_always: args.relist_every.is_some(),
        pass_env: args.pass_env.clone(),
    };
    if let Some(addr) = &args.listen {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("--listen {addr}: cannot listen there"))?;
        let local = listener.local_addr()?;
        // Printed even with --quiet: with port 0 it is the only way to learn the port.
        eprintln!("groundcheck gateway: listening on http://{local}/mcp");
        let idle = args.session_idle;
        let served = groundcheck::mcp::gateway::http::listen(
            cfg,
            listener,
            groundcheck::mcp::gateway::http::Listen {
                idle,
                sse_retry: args.sse_retry,
                max_sessions: args.max_sessions.max(1),
                shared_stateless: args.shared_stateless,
                read: args.read_timeout,
            },
            std::future::pending(),
        )
        .await?;
        let mut code = 0;
        for s in &served.sessions {
            if !args.quiet {
                print_summary(s);
            }
            code |= i32::from(!s.disabled.is_empty() || !s.blocked.is_empty());
        }
        if !args.quiet {
            eprintln!(
                "groundcheck gateway: {} session(s) served on http://{local}/mcp, {} stream(s) resumed",
                served.sessions.len(),
                served.resumed
            );
        }
        std::process::exit(code);
    }
    let summary = serve(cfg, tokio::io::stdin(), tokio::io::stdout()).await?;
    if !args.quiet {
        print_summary(&summary);
    }
    // tokio's stdin reads on a blocking thread that a runtime shutdown would wait for
    // until the agent writes or closes: after a signal, leave now (records are done).
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // Exit 1 when the session ended with tools blocked by drift or disabled after
    // mismatches (docs/gateway.md): a CI job running an agent through the gateway fails.
    let code = i32::from(!summary.disabled.is_empty() || !summary.blocked.is_empty());
    std::process::exit(code);
}

fn print_summary(summary: &groundcheck::mcp::gateway::Summary) {
    eprintln!(
        "groundcheck gateway: {} call(s), {} refused, {} timed out{}{}; trace {}",
        summary.calls,
        summary.refused,
        summary.timeouts,
        if summary.disabled.is_empty() {
            String::new()
        } else {
            format!(", disabled: {}", summary.disabled.join(", "))
        },
        summary
            .upstream_closed
            .as_ref()
            .map(|w| format!(", {w}"))
            .unwrap_or_default(),
        summary
            .trace
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    );
}
