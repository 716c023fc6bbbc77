//! Stratified sampling of traces into a labeling worksheet (seed 000: harvest cases from
//! traces, oversample the hard ones). Strata are (tool, user_role, outcome) from
//! queries/trace_outcomes.sql; this module draws them and writes the worksheet.
//!
//! Allocation: every non-empty stratum first gets one trace when n is at least the number
//! of strata (so each is represented); the rest goes one trace at a time to the stratum
//! with the highest `weight × population / (2 × allocated + 1)` that still has traces left
//! (Sainte-Laguë's highest averages, ties by stratum key). Within a stratum, traces are
//! taken in the order of a hash of the seed and the trace's key: the same seed gives the
//! same sample.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use serde_json::{Map, Value, json};

use crate::engine::query::{collect, rows_as_json};
use crate::error::{Error, Result};
use crate::output::write_atomic;

/// Outcome weights: how much more a trace of that outcome counts than a clean pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights(pub BTreeMap<String, f64>);

pub const OUTCOMES: &[&str] = &["clean", "retry", "clarification", "failure"];

impl Default for Weights {
    fn default() -> Self {
        Weights(
            [
                ("clean", 1.0),
                ("retry", 3.0),
                ("clarification", 3.0),
                ("failure", 2.0),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        )
    }
}

impl Weights {
    /// `retry=3,clarification=3`: changes the named weights, keeps the others.
    pub fn parse(s: &str) -> Result<Weights, String> {
        let mut w = Weights::default();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("expected OUTCOME=WEIGHT, got '{part}'"))?;
            let k = k.trim();
            if !OUTCOMES.contains(&k) {
                return Err(format!("'{k}' is not an outcome ({})", OUTCOMES.join(", ")));
            }
            let v: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("weight of {k} must be a number >= 0, got '{v}'"))?;
            w.0.insert(k.to_string(), v);
        }
        Ok(w)
    }

    pub fn of(&self, outcome: &str) -> f64 {
        self.0.get(outcome).copied().unwrap_or(1.0)
    }
}

/// How many to take from each stratum: `strata` is (key, population, weight), in key
/// order; the result is in the same order.
pub fn allocate(strata: &[(String, usize, f64)], n: usize) -> Vec<usize> {
    let mut got = vec![0usize; strata.len()];
    let live: Vec<usize> = (0..strata.len())
        .filter(|&i| strata[i].1 > 0 && strata[i].2 > 0.0)
        .collect();
    let mut left = n;
    if n >= live.len() {
        for &i in &live {
            got[i] = 1;
        }
        left -= live.len();
    }
    while left > 0 {
        let best = live
            .iter()
            .copied()
            .filter(|&i| got[i] < strata[i].1)
            .max_by(|&a, &b| {
                let p = |i: usize| strata[i].2 * strata[i].1 as f64 / (2 * got[i] + 1) as f64;
                p(a).total_cmp(&p(b))
                    .then_with(|| strata[b].0.cmp(&strata[a].0))
            });
        let Some(i) = best else { break };
        got[i] += 1;
        left -= 1;
    }
    got
}

/// The order traces are taken in within a stratum.
pub fn order_key(seed: u64, run_id: &str, server: &str, trace_id: &str) -> String {
    groundcheck_udfs::changes::short_hash(&format!(
        "{seed}\u{1f}{run_id}\u{1f}{server}\u{1f}{trace_id}"
    ))
}

/// A stratum: (tool, user_role, outcome).
pub type Stratum = (String, String, String);
/// A trace row of queries/trace_outcomes.sql.
type Row = Map<String, Value>;

/// Seed 000: "fewer than fifty is not enough".
pub const ENOUGH: usize = 50;

/// A drawn sample, written as `OUT/sample/worksheet.jsonl` and `sample.parquet`.
#[derive(Debug)]
pub struct Sample {
    /// Per stratum in key order: its traces, weight and how many were drawn.
    pub strata: Vec<(Stratum, usize, f64, usize)>,
    /// Traces there were to draw from, and drawn.
    pub traces: usize,
    pub drawn: usize,
    /// The folder the worksheet and the sample were written to.
    pub dir: PathBuf,
}

/// Draws `n` traces of `session` stratified by (tool, user_role, outcome) with these
/// weights and seed; writes `out/sample/worksheet.jsonl` (case skeletons with question,
/// as_user, user_role and source_trace filled, gold left for a person) and
/// `out/sample/sample.parquet` (the trace_outcomes rows drawn, in draw order).
pub async fn draw(
    session: &crate::Session,
    n: usize,
    seed: u64,
    weights: &Weights,
    out: &Path,
) -> Result<Sample> {
    let (_, batches) = collect(
        &session.ctx,
        "SELECT run_id, server, trace_id, case_id, as_user, user_role, question, tool, outcome \
         FROM trace_outcomes ORDER BY run_id, server, trace_id",
    )
    .await?;
    let rows = rows_as_json(&batches)?;
    let s = |r: &Row, k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    // Strata in key order, each with its traces in draw order.
    let mut strata: BTreeMap<Stratum, Vec<(String, &Row)>> = BTreeMap::new();
    for r in &rows {
        let key = (s(r, "tool"), s(r, "user_role"), s(r, "outcome"));
        let order = order_key(seed, &s(r, "run_id"), &s(r, "server"), &s(r, "trace_id"));
        strata.entry(key).or_default().push((order, r));
    }
    for list in strata.values_mut() {
        list.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let sizes: Vec<(String, usize, f64)> = strata
        .iter()
        .map(|((t, r, o), l)| (format!("{t}\u{1f}{r}\u{1f}{o}"), l.len(), weights.of(o)))
        .collect();
    let counts = allocate(&sizes, n);
    let mut picked: Vec<(&Stratum, &Row)> = Vec::new();
    let mut table = Vec::new();
    for ((key, list), &take) in strata.iter().zip(&counts) {
        table.push((key.clone(), list.len(), weights.of(&key.2), take));
        picked.extend(list.iter().take(take).map(|(_, r)| (key, *r)));
    }

    // The worksheet: case skeletons, gold for a person to fill in.
    let ids: Vec<String> = picked.iter().map(|(_, r)| s(r, "trace_id")).collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    let mut sheet = String::new();
    for (key, r) in &picked {
        let case_id = if unique.len() == ids.len() {
            s(r, "trace_id")
        } else {
            format!("{}/{}", s(r, "server"), s(r, "trace_id"))
        };
        let line = json!({
            "case_id": case_id,
            "source_trace": s(r, "trace_id"),
            "user_role": s(r, "user_role"),
            "as_user": r.get("as_user"),
            "question": r.get("question"),
            "gold": {"answer": null, "tolerance": null, "required_fields": [], "forbidden_fields": [],
                     "definition": null, "window": null, "freshness_bound_hours": null, "policy_scope": null},
            "sampled_from": {"run_id": s(r, "run_id"), "server": s(r, "server"), "tool": key.0, "outcome": key.2},
        });
        sheet += &line.to_string();
        sheet.push('\n');
    }
    let dir = out.join("sample");
    let sheet_path = dir.join("worksheet.jsonl");
    write_atomic(&sheet_path, sheet.as_bytes()).map_err(|e| Error::io(sheet_path.display(), e))?;

    // The sample as Parquet: the trace_outcomes rows drawn, in draw order.
    let col = |k: &str| -> Arc<StringArray> {
        Arc::new(picked.iter().map(|(_, r)| Some(s(r, k))).collect())
    };
    let keys = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("k_run_id", DataType::Utf8, true),
            Field::new("k_server", DataType::Utf8, true),
            Field::new("k_trace_id", DataType::Utf8, true),
            Field::new("draw", DataType::Int64, false),
        ])),
        vec![
            col("run_id"),
            col("server"),
            col("trace_id"),
            Arc::new(Int64Array::from_iter_values(0..picked.len() as i64)),
        ],
    )?;
    session.ctx.register_table(
        "sample_keys",
        Arc::new(MemTable::try_new(keys.schema(), vec![vec![keys]])?),
    )?;
    let (schema, batches) = collect(
        &session.ctx,
        "SELECT o.*, k.draw FROM trace_outcomes o JOIN sample_keys k \
         ON k.k_run_id = o.run_id AND k.k_server = o.server AND k.k_trace_id = o.trace_id ORDER BY k.draw",
    )
    .await?;
    crate::output::write_parquet(&dir.join("sample.parquet"), schema, &batches)?;
    Ok(Sample {
        strata: table,
        traces: rows.len(),
        drawn: picked.len(),
        dir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(k: &str, n: usize, w: f64) -> (String, usize, f64) {
        (k.to_string(), n, w)
    }

    #[test]
    fn proportional_to_weight_times_size() {
        // 100 clean (w 1), 20 retry (w 3): weighted sizes 100 and 60; 16 to share.
        let got = allocate(&[s("a/clean", 100, 1.0), s("a/retry", 20, 3.0)], 16);
        assert_eq!(got, vec![10, 6]);
        assert_eq!(got.iter().sum::<usize>(), 16);
    }

    #[test]
    fn every_stratum_is_represented_and_capped() {
        // A tiny stratum gets its one; a full one takes no more than it has.
        let got = allocate(&[s("a", 1000, 1.0), s("b", 1, 1.0), s("c", 2, 3.0)], 10);
        assert_eq!(got, vec![8, 1, 1]);
        // Fewer traces asked than strata: highest weighted sizes first.
        let got = allocate(&[s("a", 10, 1.0), s("b", 10, 3.0), s("c", 5, 1.0)], 2);
        assert_eq!(got, vec![1, 1, 0]);
        // Asking for more than there is gives everything.
        assert_eq!(allocate(&[s("a", 3, 1.0), s("b", 2, 2.0)], 50), vec![3, 2]);
        // A weight of zero leaves a stratum out.
        assert_eq!(allocate(&[s("a", 3, 0.0), s("b", 5, 1.0)], 4), vec![0, 4]);
    }

    #[test]
    fn weights_parse() {
        let w = Weights::parse("retry=5, failure=0").unwrap();
        assert_eq!(
            (w.of("retry"), w.of("failure"), w.of("clean")),
            (5.0, 0.0, 1.0)
        );
        assert!(
            Weights::parse("retries=2")
                .unwrap_err()
                .contains("not an outcome")
        );
        assert!(Weights::parse("retry=-1").is_err());
    }
}
