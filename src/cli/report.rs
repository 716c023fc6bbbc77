//! `groundcheck report`: seed 000's report per server and run; `report diff A B`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use clap::{Args as ClapArgs, Subcommand};
use groundcheck::scoring;
use serde_json::Value;

use super::common::{Chunking, Input, Oracle, Output, finish, write_labels};

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
    write_labels(&args.input, &args.output, &args.oracle, &args.chunking).await?;
    // The report reads the labels back from their file: one partition, in their order.
    let labels = scoring::labels_file_context(&out.join("labels.parquet")).await?;
    let (rschema, report) = scoring::report_in(&labels).await?;
    let json = scoring::report_json(&report)?;
    groundcheck::output::write_atomic(&out.join("report.json"), json.as_bytes())
        .context("cannot write report.json")?;
    scoring::write_parquet(&out.join("report.parquet"), rschema, &report)?;
    if let Some(dir) = &args.history {
        let at = match &args.recorded_at {
            Some(t) => chrono::DateTime::parse_from_rfc3339(t)
                .with_context(|| format!("--recorded-at {t}: not an RFC 3339 time"))?
                .with_timezone(&chrono::Utc),
            None => chrono::Utc::now(),
        };
        let path = scoring::append_history(dir, &report, at, args.note.as_deref())?;
        eprintln!("history: {}", path.display());
    }
    eprint!("{}", scoring::lineage_warnings(&labels).await?);
    print!("{}", scoring::policy_banner(&labels).await?);
    print!("{}", scoring::report_table(&report)?);
    println!();
    print!("{}", scoring::agreement(&labels).await?);
    eprintln!(
        "wrote {}, {}",
        out.join("report.json").display(),
        out.join("report.parquet").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The labels one side of a diff names: `SELECTOR` over --data's labels, or `DIR` /
/// `DIR::SELECTOR` over a saved labels.parquet. A selector is a server, a run_id or
/// SERVER@RUN_ID; a side must come to one server and run.
async fn side(
    spec: &str,
    all: &Option<(SchemaRef, Vec<RecordBatch>)>,
) -> anyhow::Result<(SchemaRef, Vec<RecordBatch>)> {
    let (dir, selector) = match spec.split_once("::") {
        Some((d, s)) => (Some(d), Some(s)),
        None if saved(spec) => (Some(spec), None),
        None => (None, Some(spec)),
    };
    let (schema, batches) = match dir {
        Some(d) => {
            let file = Path::new(d).join("labels.parquet");
            if !file.is_file() {
                bail!("{d}: no labels.parquet there");
            }
            let ctx = groundcheck::session::new_context()?;
            ctx.register_parquet(
                "labels",
                file.to_string_lossy().as_ref(),
                Default::default(),
            )
            .await?;
            scoring::labels(&ctx).await?
        }
        None => match all {
            Some(a) => a.clone(),
            None => bail!("{spec}: not a folder with labels.parquet"),
        },
    };
    let picked = match selector {
        None => (schema, batches.clone()),
        Some(sel) => {
            let ctx = groundcheck::session::new_context()?;
            ctx.register_table(
                "labels",
                Arc::new(datafusion::datasource::MemTable::try_new(
                    schema,
                    vec![batches.clone()],
                )?),
            )?;
            let quote = |s: &str| s.replace('\'', "''");
            let filter = match sel.split_once('@') {
                Some((server, run)) => {
                    format!("server = '{}' AND run_id = '{}'", quote(server), quote(run))
                }
                None => format!("(server = '{0}' OR run_id = '{0}')", quote(sel)),
            };
            scoring::collect(
                &ctx,
                &format!(
                    "SELECT * FROM labels WHERE {filter} {}",
                    scoring::LABELS_ORDER
                ),
            )
            .await?
        }
    };
    let servers = scoring::distinct_strings(&picked.1, "server");
    let runs = scoring::distinct_strings(&picked.1, "run_id");
    if servers.is_empty() {
        bail!(
            "{spec}: no such server or run (servers: {}; runs: {})",
            scoring::distinct_strings(&batches, "server").join(", "),
            scoring::distinct_strings(&batches, "run_id").join(", ")
        );
    }
    if servers.len() * runs.len() > 1 {
        bail!(
            "{spec} holds {} servers and {} runs; name one, as SERVER@RUN_ID (or DIR::SERVER@RUN_ID)",
            servers.len(),
            runs.len()
        );
    }
    Ok(picked)
}

fn saved(spec: &str) -> bool {
    Path::new(spec).join("labels.parquet").is_file()
}

async fn diff(args: &Args, d: &DiffArgs) -> anyhow::Result<ExitCode> {
    let needs_data = [&d.a, &d.b]
        .iter()
        .any(|s| !Path::new(s).join("labels.parquet").is_file());
    let all = if needs_data {
        let session = args.input.open().await?;
        args.oracle.apply(&session).await?;
        let result = scoring::labels(&session.ctx).await;
        finish(&session, &args.output.out, false)?;
        Some(result.context("labeling failed")?)
    } else {
        None
    };
    let (sa, la) = side(&d.a, &all).await?;
    let (sb, lb) = side(&d.b, &all).await?;
    let ra = scoring::rows_as_json(&scoring::report_of(sa.clone(), la.clone()).await?.1)?;
    let rb = scoring::rows_as_json(&scoring::report_of(sb.clone(), lb.clone()).await?.1)?;
    let (ra, rb) = (&ra[0], &rb[0]);
    let mut lines = vec![vec![
        "metric".to_string(),
        d.a.clone(),
        d.b.clone(),
        "delta".to_string(),
    ]];
    for f in &scoring::REPORT_FIELDS[2..] {
        let pairs: Vec<(String, Option<&Value>, Option<&Value>)> = if *f == "failures_by_class" {
            scoring::CLASSES
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
                scoring::fmt_value(a),
                scoring::fmt_value(b),
                delta,
            ]);
        }
    }
    print!("{}", scoring::align(&lines));
    let flips = scoring::flips((sa, la), (sb, lb)).await?;
    let regressed = flips.iter().any(|(_, _, r)| *r);
    println!();
    if flips.is_empty() {
        println!("no case flipped");
    } else {
        println!("cases that flipped:");
        for (case, change, _) in flips {
            println!("  {case}: {change}");
        }
    }
    Ok(if regressed && d.fail_on_regression {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
