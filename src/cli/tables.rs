//! `groundcheck tables`: which tables a project has, and their documented schema.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use groundcheck::model;

use super::common::Input;

/// List every input table with where it was found (format, file count, bytes), or with
/// --markdown print the documented schema of every table (docs/tables.md is this output).
/// Reads only file listings.
#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    input: Input,

    /// Print the reference of every table's columns as Markdown instead.
    #[arg(long)]
    markdown: bool,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.markdown {
        print!("{}", model::markdown());
        return Ok(ExitCode::SUCCESS);
    }
    let session = args.input.open().await?;
    println!(
        "{:<16} {:<8} {:>6} {:>12}  location",
        "table", "format", "files", "bytes"
    );
    for s in &session.sources {
        let format = match s.format {
            Some(groundcheck::session::Format::Jsonl) => "jsonl",
            Some(groundcheck::session::Format::Parquet) => "parquet",
            None => "-",
        };
        println!(
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
