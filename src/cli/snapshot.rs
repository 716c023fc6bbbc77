//! `groundcheck snapshot`: record every tool a server advertises as tool_snapshots rows.

use std::process::ExitCode;
use std::time::Duration;

use super::print::{out, outln};
use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::drift::snapshot::{Snapshot, Stored, load, store};

/// Snapshot a server's tools (seed 002: "snapshot every MCP tool's schema"). The server is
/// a command after `--` (spoken to over stdio), `stdio:CMD`, a streamable-HTTP URL, or a
/// saved tools/list JSON file. Follows tools/list pagination to the end and writes one row
/// per tool, with its full definition and two hashes (model-visible text; structure), to
/// OUT/snapshots/SERVER/CAPTURED_AT.parquet (or .jsonl): a new file beside the earlier
/// ones, so the folder is the tool_snapshots table (`--table tool_snapshots=OUT/snapshots`).
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// stdio:CMD, an http(s):// URL, or a tools/list .json file.
    #[arg(required_unless_present = "command", conflicts_with = "command")]
    source: Option<String>,

    /// The server command and its arguments, run over stdio.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,

    /// Server name to record (default: the name the server gives in its serverInfo).
    #[arg(long)]
    server: Option<String>,

    /// Snapshot time to record, RFC 3339 (default: now, UTC, to the second).
    #[arg(long, value_name = "TIME")]
    captured_at: Option<String>,

    /// Write JSON lines instead of Parquet.
    #[arg(long)]
    jsonl: bool,

    /// Folder for outputs: rows go to OUT/snapshots/SERVER/.
    #[arg(long, default_value = "out")]
    pub(crate) out: std::path::PathBuf,

    /// Write the whole server surface (tools, prompts, resources, resource templates,
    /// instructions, capabilities) to FILE as one JSON capture instead of rows: the
    /// baseline a CI gate commits and `drift` compares (`drift FILE stdio:CMD`).
    #[arg(long, value_name = "FILE")]
    capture: Option<std::path::PathBuf>,

    /// Seconds the server may take to start and list its tools.
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = super::common::parse_timeout)]
    timeout: Duration,
    /// Give a stdio server this environment variable too (repeatable; `PREFIX*` for a
    /// family, `*` for all). By default it gets only PATH, HOME, locale, time zone,
    /// proxies, certificates and GROUNDCHECK_*: not cloud credentials or tokens.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let source = match &args.source {
        Some(s) => s.clone(),
        None => groundcheck::drift::snapshot::stdio_source(&args.command),
    };
    let timeout = args.timeout;
    let snap: Snapshot = load(&source, None, timeout, &args.pass_env).await?;
    let server = args
        .server
        .clone()
        .or(snap.server.clone())
        .context("the server gives no name: pass --server")?;
    if server.trim().is_empty() {
        anyhow::bail!("--server: a server name must not be empty");
    }
    let captured_at = match &args.captured_at {
        Some(t) => chrono::DateTime::parse_from_rfc3339(t)
            .with_context(|| format!("--captured-at {t}: not an RFC 3339 time"))?
            .with_timezone(&chrono::Utc),
        None => chrono::Utc::now(),
    }
    .format("%Y-%m-%dT%H:%M:%SZ")
    .to_string();
    if let Some(file) = &args.capture {
        let (path, captured_at) =
            store(&snap, &server, captured_at, false, file, Stored::Capture).await?;
        let surface = snap.surface.clone().unwrap_or_default();
        outln!(
            "{} tool(s), {} prompt(s), {} resource(s), {} resource template(s) of {server} at {captured_at} -> {}",
            snap.tools.len(),
            surface.prompts.len(),
            surface.resources.len(),
            surface.templates.len(),
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // An explicit --captured-at that is taken already is refused; a capture named by
    // the clock waits for the next second.
    let how = Stored::Rows { jsonl: args.jsonl };
    let wait = args.captured_at.is_none();
    let (path, captured_at) = store(&snap, &server, captured_at, wait, &args.out, how).await?;
    outln!(
        "{} tool(s) of {server}{} at {captured_at} -> {}",
        snap.tools.len(),
        snap.server_version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default(),
        path.display()
    );
    let table: Vec<Vec<String>> = snap
        .tools
        .iter()
        .map(|t| vec![t.name.clone(), t.text_hash(), t.schema_hash()])
        .collect();
    if !table.is_empty() {
        out!("{}", groundcheck::output::text::align_left(&table));
    }
    Ok(ExitCode::SUCCESS)
}
