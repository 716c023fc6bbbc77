//! `groundcheck annotate DIR --phoenix URL`: the labels' verdicts on the spans they judge.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use groundcheck::eval::annotate::plan;
use groundcheck::output::annotate;

/// Put the verdicts of a labels folder (an earlier `label` or `report --out`) back on the
/// traces they judge, in the trace store they came from: for each task whose answer came
/// from a span (imported or collected traces), annotations `groundcheck.correct`,
/// `groundcheck.grounded`, `groundcheck.failure_class` and `groundcheck.review` on that
/// span, each with its label, score and explanation. Rerunning updates them (one per
/// name and span). docs/trace-stores.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// A folder holding labels.parquet.
    dir: PathBuf,

    /// The Arize Phoenix server to annotate (its base URL, e.g. http://127.0.0.1:6006).
    #[arg(long, value_name = "URL", required = true)]
    phoenix: String,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let planned = plan(&args.dir).await?;
    if planned.annotations.is_empty() {
        anyhow::bail!(groundcheck::Error::Input(format!(
            "{}: nothing to annotate: none of its {} task(s) has an answer span (its traces were not imported or collected from spans)",
            args.dir.display(),
            planned.without_span
        )));
    }
    let sent = annotate::to_phoenix(&args.phoenix, &planned.annotations).await?;
    if sent.annotations == 0 {
        anyhow::bail!(groundcheck::Error::Input(format!(
            "Phoenix at {} has none of the {} span(s) to annotate (was it fed these traces?)",
            args.phoenix,
            sent.missing.len()
        )));
    }
    eprintln!(
        "annotated {} span(s) in Phoenix at {}: {} annotation(s){}{}",
        sent.spans,
        args.phoenix,
        sent.annotations,
        if planned.without_span > 0 {
            format!(
                "; {} task(s) without an answer span left out",
                planned.without_span
            )
        } else {
            String::new()
        },
        if sent.missing.is_empty() {
            String::new()
        } else {
            format!(
                "; {} span(s) Phoenix does not have left out: {}",
                sent.missing.len(),
                sent.missing.join(", ")
            )
        }
    );
    Ok(ExitCode::SUCCESS)
}
