//! `groundcheck functions`: the reference of groundcheck's SQL functions.

use std::process::ExitCode;

use super::print::out;
use clap::Args as ClapArgs;

/// Print the reference of every groundcheck SQL function as Markdown, from the
/// documentation each function carries (docs/functions.md is this output). Reads nothing.
#[derive(Debug, ClapArgs)]
pub struct Args {}

pub async fn run(_args: Args) -> anyhow::Result<ExitCode> {
    out!("{}", groundcheck::output::docs::functions_markdown());
    Ok(ExitCode::SUCCESS)
}
