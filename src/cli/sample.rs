//! `groundcheck sample`: a stratified, seeded sample of traces as a labeling worksheet.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args as ClapArgs;
use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use groundcheck::eval::sample::{Weights, allocate, order_key};
use groundcheck::output::write_atomic;
use serde_json::{Map, Value, json};

use super::common::{Input, Output, finish};
use super::print::out;

/// Draw N traces stratified by tool, user role and outcome (clean, retry, clarification,
/// failure: queries/trace_outcomes.sql), oversampling retries and clarifications by
/// weight, the same sample for the same seed. Prints the strata; writes
/// OUT/sample/worksheet.jsonl (case skeletons with question, as_user, user_role and
/// source_trace filled, gold left for a person) and OUT/sample/sample.parquet.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// How many traces to draw.
    #[arg(long, short = 'n')]
    n: usize,

    /// Seed of the draw.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// Outcome weights, e.g. retry=3,clarification=3,failure=2 (unnamed ones keep their
    /// defaults: clean 1, retry 3, clarification 3, failure 2).
    #[arg(long, value_parser = Weights::parse, default_value = "")]
    weights: Weights,

    #[command(flatten)]
    input: Input,

    #[command(flatten)]
    pub(crate) output: Output,
}

/// A stratum: (tool, user_role, outcome).
type Stratum = (String, String, String);
/// A trace row of queries/trace_outcomes.sql.
type Row = Map<String, Value>;

/// Seed 000: "fewer than fifty is not enough".
const ENOUGH: usize = 50;

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    let result = groundcheck::engine::query::collect(
        &session.ctx,
        "SELECT run_id, server, trace_id, case_id, as_user, user_role, question, tool, outcome \
         FROM trace_outcomes ORDER BY run_id, server, trace_id",
    )
    .await;
    finish(&session, &args.output.out, false)?;
    let rows =
        groundcheck::engine::query::rows_as_json(&result.context("cannot classify the traces")?.1)?;
    let s = |r: &Map<String, Value>, k: &str| {
        r.get(k).and_then(Value::as_str).unwrap_or("").to_string()
    };
    // Strata in key order, each with its traces in draw order.
    let mut strata: BTreeMap<Stratum, Vec<(String, &Row)>> = BTreeMap::new();
    for r in &rows {
        let key = (s(r, "tool"), s(r, "user_role"), s(r, "outcome"));
        let order = order_key(
            args.seed,
            &s(r, "run_id"),
            &s(r, "server"),
            &s(r, "trace_id"),
        );
        strata.entry(key).or_default().push((order, r));
    }
    for list in strata.values_mut() {
        list.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let sizes: Vec<(String, usize, f64)> = strata
        .iter()
        .map(|((t, r, o), l)| {
            (
                format!("{t}\u{1f}{r}\u{1f}{o}"),
                l.len(),
                args.weights.of(o),
            )
        })
        .collect();
    let counts = allocate(&sizes, args.n);

    let mut table = vec![
        [
            "tool",
            "user_role",
            "outcome",
            "traces",
            "weight",
            "sampled",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let mut picked: Vec<(&Stratum, &Row)> = Vec::new();
    for ((key, list), &take) in strata.iter().zip(&counts) {
        table.push(vec![
            key.0.clone(),
            key.1.clone(),
            key.2.clone(),
            list.len().to_string(),
            format!("{}", args.weights.of(&key.2)),
            take.to_string(),
        ]);
        picked.extend(list.iter().take(take).map(|(_, r)| (key, *r)));
    }
    table.push(vec![
        "total".into(),
        String::new(),
        String::new(),
        rows.len().to_string(),
        String::new(),
        picked.len().to_string(),
    ]);
    out!("{}", groundcheck::output::text::align(&table));
    if rows.len() < ENOUGH {
        eprintln!(
            "warning: only {} traces to draw from; seed 000: fewer than {ENOUGH} is not enough to trust the numbers",
            rows.len()
        );
    }
    if picked.len() < ENOUGH {
        eprintln!(
            "warning: a sample of {} traces; seed 000: fewer than {ENOUGH} is not enough",
            picked.len()
        );
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
    let dir = args.output.out.join("sample");
    write_atomic(&dir.join("worksheet.jsonl"), sheet.as_bytes())
        .context("cannot write the worksheet")?;

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
    let (schema, batches) = groundcheck::engine::query::collect(
        &session.ctx,
        "SELECT o.*, k.draw FROM trace_outcomes o JOIN sample_keys k \
         ON k.k_run_id = o.run_id AND k.k_server = o.server AND k.k_trace_id = o.trace_id ORDER BY k.draw",
    )
    .await?;
    groundcheck::output::write_parquet(&dir.join("sample.parquet"), schema, &batches)?;
    eprintln!(
        "sampled {} of {} traces (seed {}) -> {}/worksheet.jsonl, sample.parquet",
        picked.len(),
        rows.len(),
        args.seed,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
