//! `groundcheck import`: traces in the formats agents and their instrumentation emit,
//! as `steps` Parquet.

use std::process::ExitCode;

use super::print::outln;
use clap::Args as ClapArgs;
use groundcheck::input::import::{self, Options, TraceFormat};

/// Read OpenTelemetry traces (OTLP protobuf or JSON, gzip or not: GenAI, MCP, OpenInference
/// and OpenLLMetry conventions), Arize Phoenix span exports, MLflow trace exports, or MCP
/// JSON-RPC logs, and write
/// them as the `steps` table: OUT/traces/FORMAT.parquet (and, for logged tools/list
/// answers, OUT/snapshots/FORMAT.parquet). The spans of one tool call (agent, MCP client,
/// MCP server) become one call. Prints per input what it took, merged and skipped, and
/// what the input lacked (left null, never invented). The mapping: docs/importers.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The format the files are in (one of the values below; docs/importers.md).
    #[arg(value_enum)]
    format: TraceFormat,

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

    /// Spans held at once: a size (512M, 64K, 2G; a bare number is MiB). Spans are held
    /// per conversation until it is written; past this, the finished conversations least
    /// recently added to are written first. Input under it is read as one whole
    /// (docs/importers.md, "Memory").
    #[arg(long, value_name = "SIZE", default_value = "512M", value_parser = size)]
    memory: usize,

    /// Seconds on the input's own clock (the latest span end read) after which a
    /// conversation with no ended root span counts as finished, once memory is short.
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = super::common::parse_duration)]
    idle: std::time::Duration,

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
        Ok(groundcheck::engine::source_traces::import_options(
            run_id,
            self.server.clone(),
            self.cases.as_deref(),
            self.case_from.clone(),
        )
        .await?)
    }
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let lines = if args.format == TraceFormat::Bfcl {
        let files = import::read_files(&args.paths)?;
        // BFCL's files name their cases themselves.
        if args.tie.cases.is_some() || !args.tie.case_from.is_empty() || args.allow_unmatched {
            anyhow::bail!(groundcheck::Error::Config(
                "import bfcl makes its cases from the question files: --cases, --case-from \
                 and --allow-unmatched do not apply"
                    .into()
            ));
        }
        let server = args.tie.server.as_deref().unwrap_or("bfcl");
        import::write_bfcl(&files, &args.run_id, server, &args.out)?
    } else if args.format == TraceFormat::McpLog {
        let files = import::read_files(&args.paths)?;
        let opts = args.tie.options(&args.run_id).await?;
        let imported = import::traces(args.format, &files, &opts, args.allow_unmatched)?;
        import::write(&imported, args.format, &args.out)?
    } else {
        let opts = args.tie.options(&args.run_id).await?;
        let hold = import::Hold {
            memory: args.memory,
            idle: chrono::Duration::from_std(args.idle).unwrap_or(chrono::Duration::MAX),
        };
        import::stream(
            args.format,
            &args.paths,
            &opts,
            args.allow_unmatched,
            hold,
            &args.out,
        )?
    };
    for line in lines {
        outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A size in bytes from `512M`, `64K`, `2G` (optionally `MiB`, `KB`...; a bare number is MiB).
pub(super) fn size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(digits);
    let n: usize = n
        .parse()
        .map_err(|_| format!("{s:?}: a size is a number and a unit (512M, 64K, 2G)"))?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "K" => 10,
        "" | "M" => 20,
        "G" => 30,
        _ => return Err(format!("{s:?}: the unit is K, M or G")),
    };
    match n.checked_mul(1 << shift) {
        Some(0) => Err("the size must be above zero".into()),
        Some(b) => Ok(b),
        None => Err(format!("{s:?}: too large")),
    }
}
