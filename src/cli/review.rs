//! `groundcheck review export|import`: the human review loop.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::{Map, Value, json};

use super::common::{Chunking, Input, Oracle, Output, write_labels};
use super::print::outln;

/// Hand the tasks the scorer was unsure of to a person, and take their decisions back.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write OUT/review.jsonl: one line per task that needs human review, with the reasons,
    /// the automatic label, the evidence, the gold record and the trace excerpt a reviewer
    /// needs, and an empty `decision` to fill in. Reads --data.
    Export(ExportArgs),
    /// Read a filled-in review.jsonl and merge its decisions into DATA/reviews.jsonl (the
    /// `reviews` table; written under a temporary name, then renamed). A decision wins
    /// over the automatic label from then on. Lines whose decision is empty are skipped
    /// and counted.
    Import(ImportArgs),
}

#[derive(Debug, ClapArgs)]
struct ExportArgs {
    #[command(flatten)]
    input: Input,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    oracle: Oracle,
    #[command(flatten)]
    chunking: Chunking,
}

#[derive(Debug, ClapArgs)]
struct ImportArgs {
    /// The review file, as export wrote it, with decisions filled in.
    file: PathBuf,
    /// The project folder to merge the decisions into (local).
    #[arg(long, default_value = "datasets/demo")]
    data: PathBuf,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Export(a) => export(a).await,
        Command::Import(a) => import(a),
    }
}

const RESULT_CHARS: usize = 2000;

async fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    super::common::local_out(&args.output.out, "review export")?;
    // Labeled once (the one labeling path), into a folder read below and then removed;
    // the questions and steps of the tasks to review come from the project.
    let scratch = super::common::scratch(&args.output.out)?;
    let quiet = Output {
        quiet: true,
        ..args.output.clone()
    };
    let (labeler, _) = write_labels(
        &args.input,
        &quiet,
        &args.oracle,
        &args.chunking,
        scratch.path(),
        None,
    )
    .await
    .context("labeling failed")?;
    let session = args.input.open().await?;
    let ctx = &session.ctx;
    ctx.register_parquet(
        "labeled",
        scratch
            .path()
            .join("labels.parquet")
            .to_string_lossy()
            .as_ref(),
        Default::default(),
    )
    .await?;
    drop(labeler);
    let result = async {
        let (_, labels) = groundcheck::engine::query::collect(
            ctx,
            "SELECT l.*, t.question, t.gold['answer'] AS gold_answer, t.gold['definition'] AS gold_definition FROM labeled l JOIN tasks t ON t.run_id = l.run_id AND t.server = l.server AND t.case_id = l.case_id WHERE l.needs_human_review ORDER BY l.run_id, l.server, l.case_id",
        )
        .await?;
        let (_, steps) = groundcheck::engine::query::collect(
            ctx,
            "SELECT s.run_id, s.server, s.case_id, s.trace_id, s.step, s.kind, s.tool, s.arguments, s.result, s.as_of, s.text FROM steps s JOIN labeled l ON l.run_id = s.run_id AND l.server = s.server AND l.case_id = s.case_id WHERE l.needs_human_review ORDER BY s.run_id, s.server, s.case_id, s.trace_id, s.step",
        )
        .await?;
        Ok::<_, groundcheck::Error>((labels, steps))
    }
    .await;
    drop(scratch);
    let (labels, steps) = result.context("cannot read the labels")?;
    let key = |r: &Map<String, Value>| {
        ["run_id", "server", "case_id"].map(|k| r.get(k).cloned().unwrap_or(Value::Null))
    };
    // Each task's steps, in order, looked up by task (not searched per task).
    let mut traces: std::collections::HashMap<[Value; 3], Vec<Value>> = Default::default();
    for mut s in groundcheck::engine::query::rows_as_json(&steps)? {
        let k = key(&s);
        for k in ["run_id", "server", "case_id"] {
            s.remove(k);
        }
        if let Some(Value::String(res)) = s.get_mut("result")
            && res.chars().count() > RESULT_CHARS
        {
            *res = res.chars().take(RESULT_CHARS).collect::<String>() + "…";
        }
        traces.entry(k).or_default().push(Value::Object(s));
    }
    let mut text = String::new();
    let rows = groundcheck::engine::query::rows_as_json(&labels)?;
    for r in &rows {
        let trace = traces.remove(&key(r)).unwrap_or_default();
        let get = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
        let line = json!({
            "run_id": get("run_id"),
            "server": get("server"),
            "case_id": get("case_id"),
            "question": get("question"),
            "gold_answer": get("gold_answer"),
            "gold_definition": get("gold_definition"),
            "answer": get("answer"),
            "review_reasons": get("review_reasons"),
            "automatic": {"correct": get("correct"), "grounded": get("grounded"), "failure_class": get("failure_class")},
            "failure_evidence": get("failure_evidence"),
            "trace": trace,
            "decision": {"correct": null, "grounded": null, "failure_class": null, "reviewer": null, "note": null},
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = args.output.out.join("review.jsonl");
    groundcheck::output::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!(
        "{} task(s) need review; wrote {}",
        rows.len(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

const CLASSES: &[&str] = &[
    "entity",
    "semantic",
    "structural",
    "temporal",
    "policy",
    "none",
];

/// One decision from a review line, checked; `None` when the line decides nothing.
fn decision(file: &Path, n: usize, line: &str) -> anyhow::Result<Option<Map<String, Value>>> {
    let at =
        |field: &str, why: &str| anyhow::anyhow!("{}:{n}: field `{field}`: {why}", file.display());
    let v: Value = serde_json::from_str(line)
        .map_err(|e| anyhow::anyhow!("{}:{n}: malformed JSON: {e}", file.display()))?;
    let mut out = Map::new();
    for k in ["run_id", "server", "case_id"] {
        match v.get(k) {
            Some(Value::String(s)) => {
                out.insert(k.into(), json!(s));
            }
            _ => return Err(at(k, "missing or not a string")),
        }
    }
    let d = v
        .get("decision")
        .and_then(Value::as_object)
        .ok_or_else(|| at("decision", "missing or not an object"))?;
    for k in ["correct", "grounded"] {
        match d.get(k) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => {
                out.insert(k.into(), json!(b));
            }
            Some(_) => return Err(at(&format!("decision.{k}"), "expected true, false or null")),
        }
    }
    match d.get("failure_class") {
        None | Some(Value::Null) => {}
        Some(Value::String(c)) if CLASSES.contains(&c.as_str()) => {
            out.insert("failure_class".into(), json!(c));
        }
        Some(_) => {
            return Err(at(
                "decision.failure_class",
                &format!("expected {} or null", CLASSES.join(", ")),
            ));
        }
    }
    if !["correct", "grounded", "failure_class"]
        .iter()
        .any(|k| out.contains_key(*k))
    {
        return Ok(None);
    }
    match d.get("reviewer") {
        Some(Value::String(r)) if !r.trim().is_empty() => {
            out.insert("reviewer".into(), json!(r));
        }
        _ => {
            return Err(at(
                "decision.reviewer",
                "a decision needs the reviewer's name",
            ));
        }
    }
    if let Some(Value::String(note)) = d.get("note") {
        out.insert("note".into(), json!(note));
    }
    let when = match d.get("decided_at") {
        Some(Value::String(t)) => t.clone(),
        _ => chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    out.insert("decided_at".into(), json!(when));
    Ok(Some(out))
}

fn import(args: ImportArgs) -> anyhow::Result<ExitCode> {
    if args.data.to_string_lossy().contains("://") {
        bail!(
            "review import writes into a local project folder, not {}",
            args.data.display()
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut decided = Vec::new();
    let mut skipped = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match decision(&args.file, i + 1, line)? {
            Some(d) => decided.push(d),
            None => skipped += 1,
        }
    }
    let target = args.data.join("reviews.jsonl");
    let mut out = match std::fs::read_to_string(&target) {
        Ok(existing) => existing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", target.display())),
    };
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for d in &decided {
        out.push_str(&Value::Object(d.clone()).to_string());
        out.push('\n');
    }
    groundcheck::output::write_atomic(&target, out.as_bytes())
        .with_context(|| format!("cannot write {}", target.display()))?;
    outln!(
        "imported {} decision(s) into {} ({skipped} line(s) without a decision skipped)",
        decided.len(),
        target.display()
    );
    Ok(ExitCode::SUCCESS)
}
