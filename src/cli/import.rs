//! `groundcheck import`: traces in the formats agents and their instrumentation emit,
//! as `steps` Parquet.

use std::process::ExitCode;

use super::print::outln;
use anyhow::Context;
use clap::Args as ClapArgs;
use groundcheck::input::import::{Format, Imported, Input, Options, batch, import, steps_batch};
use groundcheck::output::ParquetFile;

/// Read OpenTelemetry traces (OTLP protobuf or JSON, gzip or not: GenAI, MCP, OpenInference
/// and OpenLLMetry conventions), Arize Phoenix span exports, or MCP JSON-RPC logs, and write
/// them as the `steps` table: OUT/traces/FORMAT.parquet (and, for logged tools/list
/// answers, OUT/snapshots/FORMAT.parquet). The spans of one tool call (agent, MCP client,
/// MCP server) become one call. Prints per input what it took, merged and skipped, and
/// what the input lacked (left null, never invented). The mapping: docs/importers.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The format the files are in (one of the values below; docs/importers.md).
    #[arg(value_enum)]
    format: Format,

    /// Input files (local paths). The spans of all of them are read together: an agent
    /// and its MCP server may export to different files.
    #[arg(required = true)]
    paths: Vec<std::path::PathBuf>,

    /// run_id for every step (the formats have no run).
    #[arg(long, default_value = "import")]
    run_id: String,

    #[command(flatten)]
    tie: Tie,

    /// Write the steps even when --cases was given and no trace matched a case.
    #[arg(long)]
    allow_unmatched: bool,

    /// Folder for outputs.
    #[arg(long, default_value = "out")]
    pub(crate) out: std::path::PathBuf,
}

/// How imported traces are tied to servers and cases (`import` and `collect`).
#[derive(Debug, Clone, ClapArgs)]
pub struct Tie {
    /// Server name where a trace does not give one.
    #[arg(long)]
    pub server: Option<String>,

    /// Cases to tie the traces to (a cases.jsonl or .parquet, a folder or an s3:// URL): a
    /// trace whose id, or conversation id, equals a case's source_trace answers that case.
    #[arg(long, value_name = "PATH")]
    pub cases: Option<String>,

    /// A span attribute that names the case (tried before groundcheck.case_id, which is
    /// always read). Repeatable.
    #[arg(long, value_name = "ATTR")]
    pub case_from: Vec<String>,
}

impl Tie {
    /// The import options, with the cases read.
    pub async fn options(&self, run_id: &str) -> anyhow::Result<Options> {
        let mut o = Options {
            run_id: run_id.to_string(),
            server: self.server.clone(),
            case_from: self.case_from.clone(),
            ..Options::default()
        };
        if let Some(path) = &self.cases {
            o.cases_by_trace = groundcheck::engine::source_traces::cases_by_trace(path)
                .await
                .with_context(|| format!("cannot read the cases at {path}"))?;
        }
        Ok(o)
    }
}

pub fn read_inputs(paths: &[std::path::PathBuf]) -> anyhow::Result<Vec<Input>> {
    paths
        .iter()
        .map(|p| {
            Ok(Input {
                display: p.display().to_string(),
                bytes: std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?,
            })
        })
        .collect()
}

/// Imports the inputs with the cases (if given) to tie them to. An input that gives no
/// steps, or cases that no trace matches, is an error that says what was seen.
pub fn import_traces(
    format: Format,
    files: &[Input],
    opts: &Options,
    allow_unmatched: bool,
) -> anyhow::Result<Imported> {
    let imported = import(format, files, opts)?;
    imported.check_not_empty(format, files)?;
    let (traces, cased) = imported.traces();
    let asked = !opts.cases_by_trace.is_empty() || !opts.case_from.is_empty();
    if cased == 0 && !allow_unmatched && asked {
        anyhow::bail!(
            "none of the {traces} trace(s) matched a case: no trace or conversation id equals a \
             case's source_trace ({} case(s) name one), and no span carries {}; \
             --allow-unmatched writes them anyway",
            opts.cases_by_trace.len(),
            opts.case_from
                .iter()
                .map(String::as_str)
                .chain(["groundcheck.case_id"])
                .collect::<Vec<_>>()
                .join(" or ")
        );
    }
    Ok(imported)
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let files = read_inputs(&args.paths)?;
    if args.format == Format::Bfcl {
        return bfcl(&args, &files);
    }
    let opts = args.tie.options(&args.run_id).await?;
    let imported = import_traces(args.format, &files, &opts, args.allow_unmatched)?;
    let name = args.format.name();
    let steps = steps_batch(&imported.steps)?;
    let path = args.out.join("traces").join(format!("{name}.parquet"));
    let mut f = ParquetFile::create(&path, steps.schema())?;
    f.write(&steps)?;
    f.finish()?;
    for line in imported.summary(args.format) {
        outln!("{line}");
    }
    outln!("-> {}", path.display());
    let (traces, cased) = imported.traces();
    if cased < traces {
        outln!(
            "note: {} trace(s) matched no case (label and report score only traces tied to a \
             case: give --cases with their source_trace, or set groundcheck.case_id on a span)",
            traces - cased
        );
    }
    if !imported.snapshots.is_empty() {
        let b = batch(
            &groundcheck::model::TOOL_SNAPSHOTS.schema,
            &imported.snapshots,
        )?;
        let path = args.out.join("snapshots").join(format!("{name}.parquet"));
        let mut f = ParquetFile::create(&path, b.schema())?;
        f.write(&b)?;
        f.finish()?;
        outln!(
            "{} tool definition(s) from tools/list: {}",
            imported.snapshots.len(),
            path.display()
        );
    }
    for (what, n) in &imported.lacking {
        outln!("lacking: {what}: {n}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `import bfcl`: cases with expected calls and the model's calls as steps.
fn bfcl(args: &Args, files: &[Input]) -> anyhow::Result<ExitCode> {
    // BFCL's files name their cases themselves.
    if args.tie.cases.is_some() || !args.tie.case_from.is_empty() || args.allow_unmatched {
        anyhow::bail!(
            "import bfcl makes its cases from the question files: --cases, --case-from and --allow-unmatched do not apply"
        );
    }
    let server = args.tie.server.as_deref().unwrap_or("bfcl");
    let read = groundcheck::input::import::bfcl::read(files, &args.run_id, server)?;
    for note in &read.notes {
        outln!("{note}");
    }
    if !read.cases.is_empty() {
        let mut text = String::new();
        for c in &read.cases {
            text.push_str(&c.to_string());
            text.push('\n');
        }
        let path = args.out.join("cases.jsonl");
        groundcheck::output::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        outln!("-> {}", path.display());
    }
    if !read.steps.is_empty() {
        let steps = steps_batch(&groundcheck::input::import::json_columns_as_text(
            read.steps,
        ))?;
        let path = args
            .out
            .join("traces")
            .join(format!("bfcl-{server}.parquet"));
        let mut f = ParquetFile::create(&path, steps.schema())?;
        f.write(&steps)?;
        f.finish()?;
        outln!("-> {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
