//! Stratified sampling of traces into a labeling worksheet (seed 000: harvest cases from
//! traces, oversample the hard ones). Strata are (tool, user_role, outcome) from
//! queries/trace_outcomes.sql; this module only does the arithmetic.
//!
//! Allocation: every non-empty stratum first gets one trace when n is at least the number
//! of strata (so each is represented); the rest goes one trace at a time to the stratum
//! with the highest `weight × population / (2 × allocated + 1)` that still has traces left
//! (Sainte-Laguë's highest averages, ties by stratum key). Within a stratum, traces are
//! taken in the order of a hash of the seed and the trace's key: the same seed gives the
//! same sample.

use std::collections::BTreeMap;

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
    groundcheck_udfs::drift::short_hash(&format!(
        "{seed}\u{1f}{run_id}\u{1f}{server}\u{1f}{trace_id}"
    ))
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
