//! `groundcheck annotate DIR --phoenix URL | --mlflow [URL] | --otlp [URL]`: the labels'
//! verdicts on the spans they judge.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use groundcheck::eval::annotate::plan;
use groundcheck::output::annotate;

/// Put the verdicts of a labels folder (an earlier `label` or `report --out`) back on the
/// traces they judge: for each task whose answer came from a span (imported or collected
/// traces), `groundcheck.correct`, `groundcheck.grounded`, `groundcheck.failure_class`
/// and `groundcheck.review` on that span, each with its label, score and explanation: as
/// Arize Phoenix span and trace annotations, as MLflow assessments (a rerun updates them), and/or
/// as OpenTelemetry
/// `gen_ai.evaluation.result` events to any OTLP/HTTP endpoint. docs/trace-stores.md.
#[derive(Debug, ClapArgs)]
#[command(group(clap::ArgGroup::new("to").required(true).multiple(true).args(["phoenix", "mlflow", "otlp"])))]
pub struct Args {
    /// A folder holding labels.parquet.
    dir: PathBuf,

    /// The Arize Phoenix server to annotate (its base URL, e.g. http://127.0.0.1:6006).
    #[arg(long, value_name = "URL")]
    phoenix: Option<String>,

    /// The MLflow tracking server to write assessments to (its http:// base URL, e.g.
    /// http://127.0.0.1:5000); without URL, MLFLOW_TRACKING_URI.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    mlflow: Option<String>,

    /// Send the verdicts as gen_ai.evaluation.result log events over OTLP/HTTP (protobuf)
    /// to URL (`/v1/logs` is appended unless there); without URL, to
    /// OTEL_EXPORTER_OTLP_ENDPOINT.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    otlp: Option<String>,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let otlp = match args.otlp.as_deref() {
        Some("") => Some(std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").map_err(|_| {
            groundcheck::Error::Config(
                "--otlp without a URL needs OTEL_EXPORTER_OTLP_ENDPOINT set".to_string(),
            )
        })?),
        other => other.map(str::to_string),
    };
    let mlflow = match args.mlflow.as_deref() {
        Some("") => Some(std::env::var("MLFLOW_TRACKING_URI").map_err(|_| {
            groundcheck::Error::Config(
                "--mlflow without a URL needs MLFLOW_TRACKING_URI set".to_string(),
            )
        })?),
        other => other.map(str::to_string),
    };
    if let Some(url) = &mlflow
        && !url.starts_with("http://")
    {
        anyhow::bail!(groundcheck::Error::Config(format!(
            "--mlflow needs a tracking server's http:// URL, not {url:?} (a file or database store has no REST API; serve it with `mlflow server`)"
        )));
    }
    let planned = plan(&args.dir).await?;
    if planned.annotations.is_empty() {
        anyhow::bail!(groundcheck::Error::Input(format!(
            "{}: nothing to annotate: none of its {} task(s) has an answer span (its traces were not imported or collected from spans)",
            args.dir.display(),
            planned.without_span
        )));
    }
    let left_out = if planned.without_span > 0 {
        format!(
            "; {} task(s) without an answer span left out",
            planned.without_span
        )
    } else {
        String::new()
    };
    if let Some(url) = &args.phoenix {
        let sent = annotate::to_phoenix(url, &planned.annotations).await?;
        if sent.annotations == 0 {
            anyhow::bail!(groundcheck::Error::Input(format!(
                "Phoenix at {url} has none of the {} span(s) to annotate (was it fed these traces?)",
                sent.missing.len()
            )));
        }
        eprintln!(
            "annotated {} span(s) and {} trace(s) in Phoenix at {url}: {} span annotation(s), {} trace annotation(s){}{left_out}{}",
            sent.spans,
            sent.traces,
            sent.annotations,
            sent.trace_annotations,
            if sent.shared_traces > 0 {
                format!(
                    "; {} trace(s) holding several tasks annotated on the tasks' spans only",
                    sent.shared_traces
                )
            } else {
                String::new()
            },
            lacking(&sent.missing, "span(s) Phoenix does not have")
        );
    }
    if let Some(url) = &mlflow {
        let sent = annotate::to_mlflow(url, &planned.annotations).await?;
        if sent.traces == 0 {
            anyhow::bail!(groundcheck::Error::Input(format!(
                "MLflow at {url} has none of the {} trace(s) to annotate (was it fed these traces?)",
                sent.missing.len()
            )));
        }
        eprintln!(
            "assessed {} trace(s) in MLflow at {url}: {} created, {} updated, {} unchanged{}{left_out}{}",
            sent.traces,
            sent.created,
            sent.updated,
            sent.unchanged,
            if sent.removed > 0 {
                format!(", {} no longer in the labels removed", sent.removed)
            } else {
                String::new()
            },
            lacking(&sent.missing, "trace(s) MLflow does not have")
        );
    }
    if let Some(url) = &otlp {
        let sent = annotate::to_otlp(url, &planned.annotations).await?;
        if sent.rejected >= sent.events as i64 {
            anyhow::bail!(groundcheck::Error::Upstream(format!(
                "{url} rejected all {} evaluation event(s)",
                sent.events
            )));
        }
        eprintln!(
            "sent {} gen_ai.evaluation.result event(s) to {url} in {} request(s){}{left_out}",
            sent.events,
            sent.requests,
            if sent.rejected > 0 {
                format!("; {} rejected by the endpoint", sent.rejected)
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// "; N WHAT left out: a, b" for the ids a store lacks, or nothing.
fn lacking(ids: &[String], what: &str) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!("; {} {what} left out: {}", ids.len(), ids.join(", "))
    }
}
