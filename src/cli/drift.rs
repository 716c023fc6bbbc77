//! `groundcheck drift OLD NEW`: classify every change between two tool snapshots (seed
//! 002) and exit non-zero on what CI should stop.

use std::process::ExitCode;
use std::time::Duration;

use super::print::out;
use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::drift::format::{DriftFormat, render};
use groundcheck::drift::snapshot::load;
use groundcheck::drift::{FailOn, Ignore, Options, Override, judge};
use groundcheck::output::write_atomic;

/// Compare two snapshots of a server's tools. Each of OLD and NEW is a saved tools/list
/// JSON file (`.json`), stored tool_snapshots rows (JSONL, Parquet, a folder, a glob or
/// s3://; `PATH@CAPTURED_AT` picks a capture, the latest by default), a live server over
/// stdio (`stdio:'npx -y some-mcp-server'`) or a streamable-HTTP URL. Each change gets a
/// rule, a severity and an action from the rules table (`--rules` prints it); the exit
/// code is 1 when `--fail-on` says so, 2 on an error.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The snapshot the agent was built against.
    #[arg(required_unless_present = "rules")]
    old: Option<String>,

    /// The snapshot to compare with it.
    #[arg(required_unless_present = "rules")]
    new: Option<String>,

    /// The server to pick from stored rows that hold several.
    #[arg(long)]
    server: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DriftFormat::Table)]
    format: DriftFormat,

    /// Write the output to this file (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,

    /// What fails the run (exit 1): blocking changes and version errors, also warnings,
    /// or nothing.
    #[arg(long, value_enum, default_value_t = FailOn::Breaking)]
    fail_on: FailOn,

    /// Change a rule's severity (and action, which otherwise follows the severity):
    /// RULE=SEVERITY[:ACTION], e.g. text-description-changed=breaking. Repeatable.
    #[arg(long = "override", value_name = "RULE=SEVERITY[:ACTION]", value_parser = Override::parse)]
    overrides: Vec<Override>,

    /// A file of changes to leave out: lines of `RULE FINGERPRINT`, `RULE` or
    /// `FINGERPRINT` (`#` comments).
    #[arg(long, value_name = "FILE")]
    ignore: Option<std::path::PathBuf>,

    /// A client's pinned version range (e.g. '^2.0.0'): say, per tool and for the server,
    /// whether that client may call the new version.
    #[arg(long, value_name = "RANGE")]
    client_range: Option<String>,

    /// Seconds a live server may take to list its tools.
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = super::common::parse_timeout)]
    timeout: Duration,

    /// Also check every recorded call in this project's traces (a --data folder) against
    /// NEW's schemas, and say how many would fail and why (seed 002's evidence).
    #[arg(long, value_name = "DATA")]
    replay: Option<String>,

    /// The project's other servers: stored snapshots of every server the model sees
    /// beside this one (e.g. project/snapshots). Reports tool names that collide with
    /// theirs and wording that names or rules over their tools (shadowing).
    #[arg(long, value_name = "PATH")]
    project: Option<String>,

    /// Print the rules table (id, direction, severity, action, text) and exit; with
    /// `--format markdown`, as docs/drift-rules.md.
    #[arg(long)]
    rules: bool,
    /// Give a stdio server this environment variable too (repeatable; `PREFIX*` for a
    /// family, `*` for all). By default it gets only PATH, HOME, locale, time zone,
    /// proxies, certificates and GROUNDCHECK_*: not cloud credentials or tokens.
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.rules {
        let rows: Vec<Vec<String>> = groundcheck_udfs::changes::RULES
            .iter()
            .map(|r| {
                vec![
                    r.id.clone(),
                    r.direction.as_str().into(),
                    r.severity.to_string(),
                    r.action.to_string(),
                    r.text.clone(),
                ]
            })
            .collect();
        if args.format == DriftFormat::Markdown {
            out!("{}", rules_markdown());
        } else {
            out!("{}", groundcheck::output::text::align_left(&rows));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let ignore = Ignore::read(args.ignore.as_deref())?;
    let timeout = args.timeout;
    let (old, new) = (args.old.expect("required"), args.new.expect("required"));
    let server = args.server.as_deref();
    let old = load(&old, server, timeout, &args.pass_env)
        .await
        .context("cannot read OLD")?;
    let new = load(&new, server, timeout, &args.pass_env)
        .await
        .context("cannot read NEW")?;
    let others = match &args.project {
        Some(p) => groundcheck::drift::snapshot::project(p)
            .await
            .context("cannot read --project")?,
        None => Vec::new(),
    };
    let mut drift = judge(
        old,
        new,
        &Options {
            overrides: &args.overrides,
            ignore: &ignore,
            client_range: args.client_range.as_deref(),
            others: &others,
        },
    )?;
    if let Some(data) = &args.replay {
        drift.replay = groundcheck::drift::replay::against(&drift, data)
            .await
            .with_context(|| format!("cannot replay the calls of {data}"))?;
    }
    let text = render(&drift, args.format)?;
    // Judged before printing: a gate read through `| head` still fails.
    let failures = drift.failures(args.fail_on);
    let verdict = format!("drift: {failures} finding(s) fail this run (--fail-on)");
    if failures > 0 {
        super::print::on_closed_pipe(1, verdict.clone());
    }
    match &args.output {
        Some(p) => write_atomic(p, text.as_bytes())
            .with_context(|| format!("cannot write {}", p.display()))?,
        None => out!("{text}"),
    }
    if failures > 0 {
        eprintln!("{verdict}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// docs/drift-rules.md.
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# Drift rules\n\nGenerated by `groundcheck drift --rules --format markdown`; a test keeps it in sync.\n\n\
         Inputs are contravariant (narrowing what a tool accepts breaks callers), outputs covariant\n\
         (widening what it returns breaks consumers). Actions: block, warn, allow; `--override\n\
         RULE=SEVERITY[:ACTION]` changes one. The same rules are the `drift_rules` table in SQL.\n\n\
         | rule | direction | severity | action | what it detects |\n|---|---|---|---|---|\n",
    );
    for r in groundcheck_udfs::changes::RULES.iter() {
        out += &format!(
            "| `{}` | {} | {} | {} | {} |\n",
            r.id,
            r.direction.as_str(),
            r.severity,
            r.action,
            r.text.replace('|', "\\|")
        );
    }
    out
}
