//! `groundcheck report`: seed 000's report per server and run; `report diff A B`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args as ClapArgs, Subcommand};
use groundcheck::eval::report;
use serde_json::Value;

use super::common::{Chunking, Input, Oracle, Output, write_labels};
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
    input: Input,

    #[command(flatten)]
    pub(crate) output: Output,

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
    // The report reads the labels back from their file: one partition, in their order.
    let labels = report::over_labels(&out.join("labels.parquet"), None).await?;
    let (rschema, report) = report::report(&labels).await?;
    let json = report::report_json(&report)?;
    groundcheck::output::write_atomic(&out.join("report.json"), json.as_bytes())
        .context("cannot write report.json")?;
    groundcheck::output::write_parquet(&out.join("report.parquet"), rschema.clone(), &report)?;
    if let Some(dir) = &args.history {
        let at = match &args.recorded_at {
            Some(t) => chrono::DateTime::parse_from_rfc3339(t)
                .with_context(|| format!("--recorded-at {t}: not an RFC 3339 time"))?
                .with_timezone(&chrono::Utc),
            None => chrono::Utc::now(),
        };
        let path = report::append_history(
            dir,
            (rschema.clone(), report.clone()),
            at,
            args.note.as_deref(),
        )
        .await?;
        eprintln!("history: {}", path.display());
    }
    eprint!("{}", report::lineage_warnings(&labels).await?);
    out!("{}", report::policy_banner(&labels).await?);
    out!("{}", report::report_table(&report)?);
    outln!();
    out!("{}", report::agreement(&labels).await?);
    eprintln!(
        "wrote {}, {}",
        out.join("report.json").display(),
        out.join("report.parquet").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// One side of a diff: a labels file and the SQL condition that picks the side's labels.
struct Side {
    file: std::path::PathBuf,
    filter: String,
}

/// The labels one side of a diff names: `SELECTOR` over --data's labels (`labeled`), or
/// `DIR` / `DIR::SELECTOR` over a saved labels.parquet. A selector is a server, a run_id
/// or SERVER@RUN_ID; a side must come to one server and run.
async fn side(spec: &str, labeled: Option<&Path>) -> anyhow::Result<Side> {
    let (dir, selector) = match spec.split_once("::") {
        Some((d, s)) => (Some(d), Some(s)),
        None if saved(spec) => (Some(spec), None),
        None => (None, Some(spec)),
    };
    let file = match (dir, labeled) {
        (Some(d), _) => {
            let file = Path::new(d).join("labels.parquet");
            if !file.is_file() {
                bail!("{d}: no labels.parquet there");
            }
            file
        }
        (None, Some(l)) => l.join("labels.parquet"),
        (None, None) => bail!("{spec}: not a folder with labels.parquet"),
    };
    let quote = |s: &str| s.replace('\'', "''");
    let filter = match selector {
        None => "true".to_string(),
        Some(sel) => match sel.split_once('@') {
            Some((server, run)) => {
                format!("server = '{}' AND run_id = '{}'", quote(server), quote(run))
            }
            None => format!("(server = '{0}' OR run_id = '{0}')", quote(sel)),
        },
    };
    let ctx = groundcheck::engine::context::single_partition()?;
    ctx.register_parquet(
        "labels",
        file.to_string_lossy().as_ref(),
        Default::default(),
    )
    .await?;
    let names = |sql: String| {
        let ctx = &ctx;
        async move {
            let (_, b) = groundcheck::engine::query::collect(ctx, &sql).await?;
            Ok::<_, groundcheck::Error>(groundcheck::engine::query::distinct_strings(&b, "v"))
        }
    };
    let servers = names(format!(
        "SELECT DISTINCT server AS v FROM labels WHERE {filter}"
    ))
    .await?;
    let runs = names(format!(
        "SELECT DISTINCT run_id AS v FROM labels WHERE {filter}"
    ))
    .await?;
    if servers.is_empty() {
        bail!(
            "{spec}: no such server or run (servers: {}; runs: {})",
            names("SELECT DISTINCT server AS v FROM labels".into())
                .await?
                .join(", "),
            names("SELECT DISTINCT run_id AS v FROM labels".into())
                .await?
                .join(", ")
        );
    }
    if servers.len() * runs.len() > 1 {
        bail!(
            "{spec} holds {} servers and {} runs; name one, as SERVER@RUN_ID (or DIR::SERVER@RUN_ID)",
            servers.len(),
            runs.len()
        );
    }
    Ok(Side { file, filter })
}

fn saved(spec: &str) -> bool {
    Path::new(spec).join("labels.parquet").is_file()
}

async fn diff(args: &Args, d: &DiffArgs) -> anyhow::Result<ExitCode> {
    // A side that is neither DIR::SELECTOR nor a saved folder is a selector over --data.
    let needs_data = [&d.a, &d.b].iter().any(|s| !s.contains("::") && !saved(s));
    // --data's labels go to a folder of their own, read by both sides, then removed.
    let scratch = if needs_data {
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
    let a = side(&d.a, labeled).await?;
    let b = side(&d.b, labeled).await?;
    let report_of = |s: &Side| {
        let (file, filter) = (s.file.clone(), s.filter.clone());
        async move {
            let ctx = report::over_labels(&file, Some(&filter)).await?;
            let (_, rows) = report::report(&ctx).await?;
            groundcheck::engine::query::rows_as_json(&rows)
        }
    };
    let ra = report_of(&a).await?;
    let rb = report_of(&b).await?;
    let (ra, rb) = (&ra[0], &rb[0]);
    let mut lines = vec![vec![
        "metric".to_string(),
        d.a.clone(),
        d.b.clone(),
        "delta".to_string(),
    ]];
    for f in &report::REPORT_FIELDS[2..] {
        let pairs: Vec<(String, Option<&Value>, Option<&Value>)> = if *f == "failures_by_class" {
            report::CLASSES
                .iter()
                .map(|c| {
                    (
                        format!("failures: {c}"),
                        ra.get(*f).and_then(|v| v.get(*c)),
                        rb.get(*f).and_then(|v| v.get(*c)),
                    )
                })
                .collect()
        } else {
            vec![(f.to_string(), ra.get(*f), rb.get(*f))]
        };
        for (name, a, b) in pairs {
            let ints = a.is_some_and(Value::is_i64) && b.is_some_and(Value::is_i64);
            let delta = match (a.and_then(Value::as_f64), b.and_then(Value::as_f64)) {
                (Some(x), Some(y)) if ints && x != y => format!("{:+}", y as i64 - x as i64),
                (Some(x), Some(y)) if (y - x).abs() > 1e-12 => format!("{:+.4}", y - x),
                (Some(_), Some(_)) => "0".into(),
                _ => "-".into(),
            };
            lines.push(vec![
                name,
                groundcheck::output::text::fmt_value(a),
                groundcheck::output::text::fmt_value(b),
                delta,
            ]);
        }
    }
    out!("{}", groundcheck::output::text::align(&lines));
    let flips = report::flips((&a.file, &a.filter), (&b.file, &b.filter)).await?;
    drop(scratch);
    let regressed = flips.iter().any(|(_, _, r)| *r);
    outln!();
    if flips.is_empty() {
        outln!("no case flipped");
    } else {
        outln!("cases that flipped:");
        for (case, change, _) in flips {
            outln!("  {case}: {change}");
        }
    }
    Ok(if regressed && d.fail_on_regression {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
