//! `groundcheck sample`: a stratified, seeded sample of traces as a labeling worksheet.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::eval::sample::{self, ENOUGH, Weights};

use super::common::{DataArgs, OutArgs, finish};
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
    input: DataArgs,

    #[command(flatten)]
    pub(crate) output: OutArgs,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = args.input.open().await?;
    let result = sample::draw(&session, args.n, args.seed, &args.weights, &args.output.out).await;
    finish(&session, &args.output.out, false)?;
    let drawn = result.context("cannot draw the sample")?;
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
    for ((tool, role, outcome), traces, weight, take) in &drawn.strata {
        table.push(vec![
            tool.clone(),
            role.clone(),
            outcome.clone(),
            traces.to_string(),
            format!("{weight}"),
            take.to_string(),
        ]);
    }
    table.push(vec![
        "total".into(),
        String::new(),
        String::new(),
        drawn.traces.to_string(),
        String::new(),
        drawn.drawn.to_string(),
    ]);
    out!("{}", groundcheck::output::text::align(&table));
    if drawn.traces < ENOUGH {
        eprintln!(
            "warning: only {} traces to draw from; seed 000: fewer than {ENOUGH} is not enough to trust the numbers",
            drawn.traces
        );
    }
    if drawn.drawn < ENOUGH {
        eprintln!(
            "warning: a sample of {} traces; seed 000: fewer than {ENOUGH} is not enough",
            drawn.drawn
        );
    }
    eprintln!(
        "sampled {} of {} traces (seed {}) -> {}/worksheet.jsonl, sample.parquet",
        drawn.drawn,
        drawn.traces,
        args.seed,
        drawn.dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
