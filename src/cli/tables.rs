//! `groundcheck tables`: which tables a project has, and their documented schema.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use groundcheck::model;

use super::common::DataArgs;
use super::print::{out, outln};

/// List every input table with where it was found (format, file count, bytes), or with
/// --markdown print the documented schema of every table (docs/tables.md is this output).
/// Reads only file listings.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    input: DataArgs,

    /// Print the reference of every table's columns as Markdown instead.
    #[arg(long)]
    markdown: bool,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.markdown {
        out!("{}", model::markdown());
        return Ok(ExitCode::SUCCESS);
    }
    let session = args.input.open().await?;
    outln!(
        "{:<16} {:<8} {:>6} {:>12}  location",
        "table",
        "format",
        "files",
        "bytes"
    );
    for s in &session.sources {
        let format = match s.format {
            Some(groundcheck::engine::session::TableFormat::Jsonl) => "jsonl",
            Some(groundcheck::engine::session::TableFormat::Parquet) => "parquet",
            None => "-",
        };
        outln!(
            "{:<16} {:<8} {:>6} {:>12}  {}",
            s.spec.name,
            format,
            s.files.len(),
            s.bytes(),
            s.searched
        );
    }
    Ok(ExitCode::SUCCESS)
}
