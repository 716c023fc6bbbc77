//! `groundcheck report`: seed 000's report per server and run; `report diff A B`.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use groundcheck::eval::{diff, report};
use groundcheck::output::text::fmt_value;

use super::common::{Chunking, DataArgs, Oracle, OutArgs, write_labels};
use super::print::{out, outln};

/// Aggregate the labels into seed 000's report, one object per server under test and run
/// (queries/report.sql): writes OUT/report.json (exactly the seed's fields),
/// OUT/report.parquet, OUT/labels.jsonl and OUT/labels.parquet, prints the servers side by
/// side, and how the automatic labels agree with the hand labels. Reads --data (the demo
/// project by default).
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    diff: Option<Diff>,

    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    pub(crate) output: OutArgs,

    #[command(flatten)]
    oracle: Oracle,

    #[command(flatten)]
    chunking: Chunking,

    /// Also append this report to a history folder (the report_history table, one
    /// Parquet file per report), for queries/trends.sql.
    #[arg(long, value_name = "DIR")]
    history: Option<std::path::PathBuf>,

    /// With --history: what changed before this report, in your words.
    #[arg(long, requires = "history")]
    note: Option<String>,

    /// With --history: the time to record (RFC 3339; default now).
    #[arg(long, requires = "history", value_name = "TIME")]
    recorded_at: Option<String>,

    /// Also write OUT/report.html: one self-contained page (servers side by side, plots,
    /// the cases with their traces) that opens from a file or a CI artifact
    /// (docs/html.md).
    #[arg(long)]
    html: bool,

    #[command(flatten)]
    page: super::common::Html,
}

#[derive(Debug, Subcommand)]
enum Diff {
    /// Compare two runs: every metric's delta, and the cases that flipped (correct to
    /// wrong, grounded to ungrounded, a new failure class). Each side is a server, a
    /// run_id or SERVER@RUN_ID in --data's labels, or a folder holding a labels.parquet
    /// (an earlier --out), optionally narrowed as DIR::SERVER@RUN_ID.
    /// Exit code 1 with --fail-on-regression when B regressed on any case.
    Diff(DiffArgs),
}

#[derive(Debug, ClapArgs)]
struct DiffArgs {
    /// The base side.
    a: String,
    /// The side compared with it.
    b: String,
    /// Exit with code 1 when a case went from correct to wrong or grounded to ungrounded.
    #[arg(long)]
    fail_on_regression: bool,

    /// Also write OUT/diff.html: the deltas, the rates side by side and the flipped
    /// cases, in one self-contained page.
    #[arg(long)]
    html: bool,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(Diff::Diff(d)) = &args.diff {
        return diff(&args, d).await;
    }
    let out = &args.output.out;
    write_labels(
        &args.input,
        &args.output,
        &args.oracle,
        &args.chunking,
        out,
        None,
    )
    .await?;
    let history = match &args.history {
        Some(dir) => Some(report::History {
            dir: dir.clone(),
            at: match &args.recorded_at {
                Some(t) => chrono::DateTime::parse_from_rfc3339(t)
                    .with_context(|| format!("--recorded-at {t}: not an RFC 3339 time"))?
                    .with_timezone(&chrono::Utc),
                None => chrono::Utc::now(),
            },
            note: args.note.clone(),
        }),
        None => None,
    };
    let made = report::make(out, history.as_ref()).await?;
    if let Some(path) = &made.history {
        eprintln!("history: {}", path.display());
    }
    eprint!("{}", made.warnings);
    out!("{}", made.banner);
    out!("{}", made.table);
    out!("{}", made.not_scored);
    outln!();
    out!("{}", made.agreement);
    let files: Vec<String> = made.files.iter().map(|p| p.display().to_string()).collect();
    eprintln!("wrote {}", files.join(", "));
    if args.html {
        let mut input = args.input.clone();
        if let Some(dir) = &args.history {
            // The page's trends read the history this report was just added to.
            input.tables.retain(|(t, _)| t != "report_history");
            input
                .tables
                .push(("report_history".into(), dir.display().to_string()));
        }
        let path = out.join("report.html");
        args.page
            .write(&out.join("labels.parquet"), &input, &path)
            .await?;
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

async fn diff(args: &Args, d: &DiffArgs) -> anyhow::Result<ExitCode> {
    // --data's labels go to a folder of their own, read by both sides, then removed.
    let scratch = if [&d.a, &d.b].iter().any(|s| diff::needs_labels(s)) {
        let dir = super::common::scratch(&args.output.out)?;
        write_labels(
            &args.input,
            &args.output,
            &args.oracle,
            &args.chunking,
            dir.path(),
            None,
        )
        .await
        .context("labeling failed")?;
        Some(dir)
    } else {
        None
    };
    let labeled = scratch.as_ref().map(|d| d.path());
    let (deltas, flips) = diff::compare(&d.a, &d.b, labeled).await?;
    drop(scratch);
    let mut lines = vec![vec![
        "metric".to_string(),
        d.a.clone(),
        d.b.clone(),
        "delta".to_string(),
    ]];
    for m in &deltas {
        lines.push(vec![
            m.metric.clone(),
            fmt_value(m.a.as_ref()),
            fmt_value(m.b.as_ref()),
            m.delta.clone(),
        ]);
    }
    out!("{}", groundcheck::output::text::align(&lines));
    if d.html {
        let path = args.output.out.join("diff.html");
        groundcheck::eval::page::write_diff(&d.a, &d.b, &deltas, &flips, &path)?;
        eprintln!("wrote {}", path.display());
    }
    let regressed = flips.iter().any(|f| f.regression);
    outln!();
    if flips.is_empty() {
        outln!("no case flipped");
    } else {
        outln!("cases that flipped:");
        for f in flips {
            outln!("  {}: {}", f.case_id, f.change);
        }
    }
    Ok(if regressed && d.fail_on_regression {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
