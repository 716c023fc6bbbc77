//! Seed 002's runtime guards over recorded tool results, by window
//! (queries/tool_health.sql): the windows whose share of empty or error results jumped
//! above the tool's baseline of earlier healthy windows.

use serde_json::{Map, Value};

use crate::engine::query::{collect, rows_as_json};
use crate::error::{Error, Result};

/// The thresholds, as `anomaly_settings` holds them.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `hour` or `day`.
    pub window: &'static str,
    /// Results a window needs to be judged (and to count in a baseline).
    pub min_calls: i64,
    /// How far above its baseline a rate must be to flag, in (0, 1].
    pub jump: f64,
    /// Healthy earlier windows the baseline needs before anything is flagged.
    pub min_baseline: i64,
    /// |z| of a result's rows or bytes for the per-call guard.
    pub z: f64,
}

impl Settings {
    /// A usage error for thresholds out of range.
    pub fn check(&self) -> Result<()> {
        if !(self.jump > 0.0 && self.jump <= 1.0) {
            return Err(Error::Config(format!(
                "--jump {}: a rate between 0 (exclusive) and 1",
                self.jump
            )));
        }
        Ok(())
    }
}

/// What the guards found.
#[derive(Debug)]
pub struct Anomalies {
    /// Windows judged, and the tools they are of.
    pub windows: i64,
    pub tools: i64,
    /// The flagged rows of `tool_health`, in (server, tool, window) order.
    pub flagged: Vec<Map<String, Value>>,
}

impl Anomalies {
    /// The one-line summary (also what an alert is told).
    pub fn summary(&self, s: &Settings) -> String {
        format!(
            "{} of {} {} window(s) of {} tool(s) flagged (jump {}, min calls {}, baseline of {} healthy windows)",
            self.flagged.len(),
            self.windows,
            s.window,
            self.tools,
            s.jump,
            s.min_calls,
            s.min_baseline
        )
    }
}

/// Runs the guards over `session`'s traces (the project at `data`). An input error when
/// no recorded result has a time: there is nothing to watch.
pub async fn find(session: &crate::Session, data: &str, s: &Settings) -> Result<Anomalies> {
    s.check()?;
    collect(
        &session.ctx,
        &format!(
            "INSERT INTO anomaly_settings VALUES ('{}', {}, {}, {}, {})",
            s.window, s.min_calls, s.jump, s.min_baseline, s.z
        ),
    )
    .await?;
    let (_, total) = collect(
        &session.ctx,
        "SELECT count(*) AS windows, count(DISTINCT server || '/' || tool) AS tools FROM tool_health",
    )
    .await?;
    let (_, flagged) = collect(
        &session.ctx,
        "SELECT server, tool, CAST(window_start AS VARCHAR) AS window_start, calls, errors, empty, \
         empty_rate, baseline_empty_rate, error_rate, baseline_error_rate, baseline_windows, \
         empty_spike, error_spike FROM tool_health WHERE empty_spike OR error_spike \
         ORDER BY server, tool, window_start",
    )
    .await?;
    let total = rows_as_json(&total)?;
    let n = |k: &str| {
        total
            .first()
            .and_then(|r| r.get(k))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let found = Anomalies {
        windows: n("windows"),
        tools: n("tools"),
        flagged: rows_as_json(&flagged)?,
    };
    if found.windows == 0 {
        return Err(Error::Input(format!(
            "no tool result with a time in the traces of {data}: nothing to watch"
        )));
    }
    Ok(found)
}
