//! `report diff A B`: two sides' labels, each a labels file and the condition that picks
//! the side (one server and run), compared: every report figure's delta, and the cases
//! that flipped (queries/label_flips.sql, which also says what a regression is).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::engine::context::single_partition;
use crate::engine::query::{collect, distinct_strings, rows_as_json};
use crate::error::{Error, Result};
use crate::eval::report::{self, CLASSES, REPORT_FIELDS};

/// One side: a labels file, and the SQL condition over its columns that picks the side.
#[derive(Debug, Clone)]
pub struct Side {
    pub file: PathBuf,
    pub filter: String,
}

/// Whether `spec` is a folder holding a labels.parquet (an earlier --out).
pub fn is_saved(spec: &str) -> bool {
    Path::new(spec).join("labels.parquet").is_file()
}

/// Whether `spec` selects from the project's own labels (neither DIR::SELECTOR nor DIR).
pub fn needs_labels(spec: &str) -> bool {
    !spec.contains("::") && !is_saved(spec)
}

/// The labels `spec` names: `SELECTOR` over `labeled` (a folder of the project's labels),
/// or `DIR` / `DIR::SELECTOR` over a saved labels.parquet. A selector is a server, a
/// run_id or SERVER@RUN_ID; a side must come to one server and run.
pub async fn side(spec: &str, labeled: Option<&Path>) -> Result<Side> {
    let (dir, selector) = match spec.split_once("::") {
        Some((d, s)) => (Some(d), Some(s)),
        None if is_saved(spec) => (Some(spec), None),
        None => (None, Some(spec)),
    };
    let file = match (dir, labeled) {
        (Some(d), _) => {
            let file = Path::new(d).join("labels.parquet");
            if !file.is_file() {
                return Err(Error::Input(format!("{d}: no labels.parquet there")));
            }
            file
        }
        (None, Some(l)) => l.join("labels.parquet"),
        (None, None) => {
            return Err(Error::Input(format!(
                "{spec}: not a folder with labels.parquet"
            )));
        }
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
    let ctx = single_partition()?;
    ctx.register_parquet(
        "labels",
        file.to_string_lossy().as_ref(),
        Default::default(),
    )
    .await?;
    let names = async |column: &str, filter: &str| -> Result<Vec<String>> {
        let sql = format!("SELECT DISTINCT {column} AS v FROM labels WHERE {filter}");
        Ok(distinct_strings(&collect(&ctx, &sql).await?.1, "v"))
    };
    let servers = names("server", &filter).await?;
    let runs = names("run_id", &filter).await?;
    if servers.is_empty() {
        return Err(Error::Input(format!(
            "{spec}: no such server or run (servers: {}; runs: {})",
            names("server", "true").await?.join(", "),
            names("run_id", "true").await?.join(", ")
        )));
    }
    if servers.len() * runs.len() > 1 {
        return Err(Error::Input(format!(
            "{spec} holds {} servers and {} runs; name one, as SERVER@RUN_ID (or DIR::SERVER@RUN_ID)",
            servers.len(),
            runs.len()
        )));
    }
    Ok(Side { file, filter })
}

/// `report diff A B`: both sides read (`labeled`: the folder --data's labels were written
/// to, when a side needs them), every metric's delta and the cases that flipped.
pub async fn compare(a: &str, b: &str, labeled: Option<&Path>) -> Result<(Vec<Delta>, Vec<Flip>)> {
    let a = side(a, labeled).await?;
    let b = side(b, labeled).await?;
    Ok((deltas(&a, &b).await?, flips(&a, &b).await?))
}

/// One report figure on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// The field, `failures: CLASS` for failures_by_class.
    pub metric: String,
    pub a: Option<Value>,
    pub b: Option<Value>,
    /// B - A: `+N` for counts, `+0.1234` for rates, `0` when equal, `-` when either is
    /// NULL.
    pub delta: String,
}

/// Every report field of seed 000 (after server and run_id) on both sides.
pub async fn deltas(a: &Side, b: &Side) -> Result<Vec<Delta>> {
    let report_of = async |s: &Side| -> Result<serde_json::Map<String, Value>> {
        let ctx = report::over_labels(&s.file, Some(&s.filter)).await?;
        let (_, rows) = report::report(&ctx).await?;
        Ok(rows_as_json(&rows)?.into_iter().next().unwrap_or_default())
    };
    let (ra, rb) = (report_of(a).await?, report_of(b).await?);
    let mut out = Vec::new();
    for f in &REPORT_FIELDS[2..] {
        let pairs: Vec<(String, Option<&Value>, Option<&Value>)> = if *f == "failures_by_class" {
            CLASSES
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
        for (metric, x, y) in pairs {
            let ints = x.is_some_and(Value::is_i64) && y.is_some_and(Value::is_i64);
            let delta = match (x.and_then(Value::as_f64), y.and_then(Value::as_f64)) {
                (Some(p), Some(q)) if ints && p != q => format!("{:+}", q as i64 - p as i64),
                (Some(p), Some(q)) if (q - p).abs() > 1e-12 => format!("{:+.4}", q - p),
                (Some(_), Some(_)) => "0".into(),
                _ => "-".into(),
            };
            out.push(Delta {
                metric,
                a: x.cloned(),
                b: y.cloned(),
                delta,
            });
        }
    }
    Ok(out)
}

/// A case that flipped from A to B.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flip {
    pub case_id: String,
    pub change: String,
    pub regression: bool,
}

/// The cases that flipped (queries/label_flips.sql).
pub async fn flips(a: &Side, b: &Side) -> Result<Vec<Flip>> {
    Ok(report::flips((&a.file, &a.filter), (&b.file, &b.filter))
        .await?
        .into_iter()
        .map(|(case_id, change, regression)| Flip {
            case_id,
            change,
            regression,
        })
        .collect())
}
