//! Seed 002's evidence: every recorded tool call of a project checked against a
//! candidate schema, as if it had been sent after the change (queries/replay_summary.sql).
//! `groundcheck replay` and `drift --replay` are both this.

use std::time::Duration;

use arrow::array::RecordBatch;
use datafusion::dataframe::DataFrameWriteOptions;
use serde_json::Value;

use crate::drift::snapshot::{self, Snapshot, Source};
use crate::engine::query::{collect, rows_as_json};
use crate::error::{Error, Result};

/// The candidate schema, as rows of `tool_snapshots`.
pub struct Candidate {
    rows: Vec<RecordBatch>,
    /// What the candidate is of: `server 'x'`, or `the candidate's servers`.
    pub of: String,
}

impl Candidate {
    /// One server's snapshot (a tools/list file, a live server, a drift's new side).
    pub fn snapshot(snap: &Snapshot, server: &str) -> Result<Candidate> {
        let rows = snapshot::rows(snap, server, "1970-01-01T00:00:00Z");
        Ok(Candidate {
            rows: vec![snapshot::batch(&rows)?],
            of: format!("server '{server}'"),
        })
    }

    /// Whatever `spec` names: stored `tool_snapshots` rows (which may hold several
    /// servers, each matched by its own name, unless `server` picks one), a tools/list
    /// file, or a live server (`stdio:CMD`, a URL) that gets `pass_env`. Errors do not
    /// repeat `spec`: the caller names it.
    pub async fn load(
        spec: &str,
        server: Option<&str>,
        timeout: Duration,
        pass_env: &[String],
    ) -> Result<Candidate> {
        if let Source::Stored { path, at } = Source::parse(spec)
            && server.is_none()
        {
            let table = crate::Session::open_table(&crate::model::TOOL_SNAPSHOTS, &path).await?;
            let q = match &at {
                Some(t) => format!(
                    "SELECT * FROM tool_snapshots WHERE CAST(captured_at AS VARCHAR) = '{}'",
                    t.replace('\'', "''")
                ),
                None => "SELECT * FROM tool_snapshots".to_string(),
            };
            let (_, rows) = collect(&table.ctx, &q).await?;
            if rows.iter().all(|b| b.num_rows() == 0) {
                return Err(Error::Input("no tool snapshot rows there".into()));
            }
            return Ok(Candidate {
                rows,
                of: "the candidate's servers".into(),
            });
        }
        let snap = snapshot::load(spec, server, timeout, pass_env).await?;
        let Some(server) = server.map(str::to_string).or(snap.server.clone()) else {
            return Err(Error::Config(
                "it names no server, so no recorded call can be matched to it: give --server \
                 NAME (the server the recorded calls were made to)"
                    .into(),
            ));
        };
        Candidate::snapshot(&snap, &server)
    }
}

/// How the recorded calls to one tool fare under the candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReplay {
    pub server: String,
    pub tool: String,
    pub calls: i64,
    pub failing: i64,
    /// `N x reason` for each reason, `; `-separated.
    pub reasons: String,
}

impl ToolReplay {
    /// One line: `N of M recorded calls to TOOL (SERVER) would fail: …` or `all M
    /// recorded calls to TOOL (SERVER) pass`; without the server where the reader knows it.
    pub fn line(&self, name_server: bool) -> String {
        let tool = if name_server {
            format!("{} ({})", self.tool, self.server)
        } else {
            self.tool.clone()
        };
        if self.failing > 0 {
            format!(
                "{} of {} recorded calls to {tool} would fail: {}",
                self.failing, self.calls, self.reasons
            )
        } else {
            format!("all {} recorded calls to {tool} pass", self.calls)
        }
    }
}

/// Replays the recorded calls of `session` (the project at `data`) against `candidate`, per tool the candidate
/// defines, in (server, tool) order. An input error when no recorded call is to it.
pub async fn run(
    session: &crate::Session,
    data: &str,
    candidate: Candidate,
) -> Result<Vec<ToolReplay>> {
    for b in candidate.rows {
        session
            .ctx
            .read_batch(b)?
            .write_table("candidate_snapshots", DataFrameWriteOptions::new())
            .await?;
    }
    let (_, batches) = collect(
        &session.ctx,
        "SELECT * FROM replay_summary ORDER BY server, tool",
    )
    .await?;
    let tools: Vec<ToolReplay> = rows_as_json(&batches)?
        .iter()
        .map(|r| {
            let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            ToolReplay {
                server: s("server"),
                tool: s("tool"),
                calls: n("calls"),
                failing: n("failing"),
                reasons: s("reasons"),
            }
        })
        .collect();
    if tools.is_empty() {
        return Err(Error::Input(format!(
            "no recorded call in {data} is to a tool of {} that the candidate defines{}",
            candidate.of,
            recorded_servers(session).await
        )));
    }
    Ok(tools)
}

/// `drift --replay DATA`: the project's recorded calls against the drift's new side.
pub async fn against(d: &crate::drift::Drift, data: &str) -> Result<Vec<String>> {
    // Recorded calls are matched by server name: without one nothing could match.
    let Some(server) = d.new.server.clone().or(d.old.server.clone()) else {
        return Err(Error::Config(format!(
            "--replay: {} names no server, so no recorded call can be matched to it: give \
             --server NAME (the server the recorded calls were made to)",
            d.new.source
        )));
    };
    let session = crate::Session::open(crate::SessionOptions {
        data: data.to_string(),
        ..Default::default()
    })
    .await?;
    let tools = run(&session, data, Candidate::snapshot(&d.new, &server)?).await?;
    Ok(tools.iter().map(|t| t.line(false)).collect())
}

/// ` (the recorded calls are to: a, b)`, for a replay that matched nothing.
async fn recorded_servers(session: &crate::Session) -> String {
    let q = "SELECT DISTINCT server FROM steps WHERE kind = 'tool_call' AND server IS NOT NULL ORDER BY server";
    match collect(&session.ctx, q).await {
        Ok((_, batches)) => {
            let names: Vec<String> = rows_as_json(&batches)
                .unwrap_or_default()
                .iter()
                .filter_map(|r| r.get("server").and_then(Value::as_str))
                .map(str::to_string)
                .collect();
            if names.is_empty() {
                " (it has no recorded tool calls)".to_string()
            } else {
                format!(" (the recorded calls are to: {})", names.join(", "))
            }
        }
        Err(_) => String::new(),
    }
}
