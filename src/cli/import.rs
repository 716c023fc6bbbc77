//! `groundcheck import`: traces in the formats agents emit, as `steps` Parquet.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::import::{Format, Options, batch, import, steps_batch};
use groundcheck::output::ParquetFile;

/// Read OpenTelemetry (OTLP JSON: GenAI and MCP semantic conventions, OpenInference
/// attributes), Phoenix OpenInference span lines, or MCP JSON-RPC logs, and write them as
/// the `steps` table: OUT/traces/FORMAT.parquet (and, for logged tools/list answers,
/// OUT/snapshots/FORMAT.parquet). Prints what the input lacked (as_user, as_of, …): left
/// null, never invented. The mapping: docs/importers.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[arg(value_enum)]
    format: Format,

    /// Input files (local paths).
    #[arg(required = true)]
    paths: Vec<std::path::PathBuf>,

    /// run_id for every step (the formats have no run).
    #[arg(long, default_value = "import")]
    run_id: String,

    /// Server name where the trace does not give one.
    #[arg(long)]
    server: Option<String>,

    /// Folder for outputs.
    #[arg(long, default_value = "out")]
    out: std::path::PathBuf,
}

pub fn read_inputs(
    paths: &[std::path::PathBuf],
) -> anyhow::Result<Vec<groundcheck::import::Input>> {
    paths
        .iter()
        .map(|p| {
            Ok(groundcheck::import::Input {
                display: p.display().to_string(),
                bytes: std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?,
            })
        })
        .collect()
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let files = read_inputs(&args.paths)?;
    let imported = import(
        args.format,
        &files,
        &Options {
            run_id: args.run_id.clone(),
            server: args.server.clone(),
        },
    )?;
    let name = args.format.name();
    let steps = steps_batch(&imported.steps)?;
    let path = args.out.join("traces").join(format!("{name}.parquet"));
    let mut f = ParquetFile::create(&path, steps.schema())?;
    f.write(&steps)?;
    f.finish()?;
    let traces: std::collections::BTreeSet<&str> = imported
        .steps
        .iter()
        .filter_map(|s| s.get("trace_id").and_then(serde_json::Value::as_str))
        .collect();
    println!(
        "{} record(s) -> {} step(s) in {} trace(s): {}",
        imported.records,
        imported.steps.len(),
        traces.len(),
        path.display()
    );
    if !imported.snapshots.is_empty() {
        let b = batch(
            &groundcheck::model::TOOL_SNAPSHOTS.schema,
            &imported.snapshots,
        )?;
        let path = args.out.join("snapshots").join(format!("{name}.parquet"));
        let mut f = ParquetFile::create(&path, b.schema())?;
        f.write(&b)?;
        f.finish()?;
        println!(
            "{} tool definition(s) from tools/list: {}",
            imported.snapshots.len(),
            path.display()
        );
    }
    for (what, n) in &imported.lacking {
        println!("lacking: {what}: {n}");
    }
    Ok(ExitCode::SUCCESS)
}
