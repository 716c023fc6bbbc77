//! `groundcheck html DIR`: the HTML report of a saved `--out` folder.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use super::common::{DataArgs, Html};

/// Render the HTML report (report.html: servers side by side, plots, the cases with their
/// traces) of a folder an earlier `label` or `report` wrote, from its labels.parquet; the
/// traces, gold records and history come from --data, the project the labels were made
/// from (the demo by default; --no-traces to leave them out). docs/html.md.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// A folder holding labels.parquet (an earlier --out).
    dir: PathBuf,

    /// Where to write the page (default DIR/report.html).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,

    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    html: Html,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if groundcheck::output::remote::is_remote(&args.dir) {
        anyhow::bail!(groundcheck::Error::Config(format!(
            "{}: `html` reads a local folder; copy its labels.parquet down first",
            args.dir.display()
        )));
    }
    let labels = args.dir.join("labels.parquet");
    if !labels.is_file() {
        anyhow::bail!(groundcheck::Error::Config(format!(
            "{}: no labels.parquet (render a folder written by `label` or `report`)",
            args.dir.display()
        )));
    }
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| args.dir.join("report.html"));
    args.html.write(&labels, &args.input, &path).await?;
    eprintln!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}
