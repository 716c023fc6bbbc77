//! `groundcheck sql`: SQL over every table, with every function registered.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use groundcheck::Session;
use groundcheck::engine::sql;
use groundcheck::output::ResultFormat;

use super::common::{DataArgs, OutArgs, finish};

/// Run SQL over the project's tables (cases, steps, catalog, glossary, policies, pricing,
/// id_schemes, fiscal_calendar, tool_snapshots) with groundcheck's functions and
/// datafusion-functions-json's registered. The SQL comes from the argument, from -f FILE,
/// from standard input when it is not a terminal, or else from an interactive prompt
/// (history in ~/.local/state/groundcheck/history). Several statements separated by `;`
/// run in order; each query's result is printed. Reads only the project's tables (and
/// --table files: NAME=PATH with a name that is not an input table registers any Parquet
/// or JSON-lines file or folder, an output such as labels.parquet, as table NAME); writes
/// only --output and, with --on-bad-line skip, OUT/rejects.jsonl.
/// Statements that create tables or views, or read or write other files (CREATE EXTERNAL
/// TABLE, COPY ... TO, INSERT), need --allow-files.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The SQL to run.
    query: Option<String>,

    /// Read the SQL from this file.
    #[arg(long, short = 'f', conflicts_with = "query")]
    file: Option<PathBuf>,

    /// How to print results (default: from --output's extension, .parquet, .csv,
    /// .json or .jsonl; else a table).
    #[arg(long, value_enum)]
    format: Option<ResultFormat>,

    /// Write the (last) result to this file instead of standard output (written under a
    /// temporary name, then renamed). Required for --format parquet.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,

    /// Also run statements that create tables or views and read or write files of their
    /// own (CREATE EXTERNAL TABLE, COPY ... TO, INSERT): they can reach any file this
    /// process can.
    #[arg(long)]
    allow_files: bool,

    #[command(flatten)]
    input: DataArgs,

    #[command(flatten)]
    pub(crate) out: OutArgs,
}

pub async fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    if args.format.is_none() {
        let ext = args
            .output
            .as_ref()
            .and_then(|p| p.extension())
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        args.format = Some(match ext.as_deref() {
            Some("parquet") => ResultFormat::Parquet,
            Some("csv") => ResultFormat::Csv,
            Some("json" | "jsonl" | "ndjson") => ResultFormat::Json,
            _ => ResultFormat::Table,
        });
    }
    if args.format == Some(ResultFormat::Parquet) && args.output.is_none() {
        bail!("--format parquet writes a file: give --output FILE");
    }
    let sql = match (&args.query, &args.file) {
        (Some(q), _) => Some(q.clone()),
        (None, Some(f)) => Some(
            std::fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?,
        ),
        (None, None) if !std::io::stdin().is_terminal() => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("cannot read standard input")?;
            Some(s)
        }
        (None, None) => None,
    };
    // A --table name that is not one of the input tables names a file of its own: an
    // output (labels.parquet, report.parquet, an import) queried like the inputs.
    let (known, extra): (Vec<_>, Vec<_>) = std::mem::take(&mut args.input.tables)
        .into_iter()
        .partition(|(name, _)| groundcheck::model::table(name).is_some());
    args.input.tables = known;
    let session = args.input.open().await?;
    for (name, path) in &extra {
        groundcheck::engine::tables::register_file(&session.ctx, name, path)
            .await
            .with_context(|| format!("--table {name}={path}"))?;
    }
    let result = match sql {
        Some(sql) => run_script(&session, &sql, &args).await,
        None => interactive(&session, &args).await,
    };
    finish(&session, &args.out.out, false)?;
    result?;
    Ok(ExitCode::SUCCESS)
}

async fn run_script(session: &Session, sql: &str, args: &Args) -> anyhow::Result<()> {
    let statements = sql::parse(sql)?;
    let n = statements.len();
    let mut last = None;
    for (i, stmt) in statements.into_iter().enumerate() {
        let rows = sql::execute(&session.ctx, stmt, args.allow_files).await?;
        if args.output.is_some() {
            last = Some(rows);
        } else if rows.is_table() {
            let mut stdout = super::print::stdout();
            rows.print(&mut stdout, format(args))?;
            if i + 1 < n && format(args) == ResultFormat::Table {
                writeln!(stdout).map_err(|e| groundcheck::Error::io("stdout", e))?;
            }
        }
    }
    if let (Some(path), Some(rows)) = (&args.output, last) {
        rows.write(path, format(args))?;
    }
    Ok(())
}

/// The format `run` settled on.
fn format(args: &Args) -> ResultFormat {
    args.format.unwrap_or(ResultFormat::Table)
}

async fn interactive(session: &Session, args: &Args) -> anyhow::Result<()> {
    use rustyline::error::ReadlineError;
    let mut editor = rustyline::DefaultEditor::new()?;
    let history =
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state/groundcheck/history"));
    if let Some(h) = &history {
        let _ = std::fs::create_dir_all(h.parent().expect("has parent"));
        let _ = editor.load_history(h);
    }
    eprintln!("groundcheck sql: end statements with ';', \\q to quit, \\d to list tables");
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            "groundcheck> "
        } else {
            "         ...> "
        };
        let line = match editor.readline(prompt) {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        let trimmed = line.trim();
        if pending.is_empty() {
            match trimmed {
                "\\q" | "quit" | "exit" => break,
                "\\d" => {
                    let _ = editor.add_history_entry(trimmed);
                    report(run_script(session, sql::LIST_TABLES, args).await);
                    continue;
                }
                "" => continue,
                _ => {}
            }
        }
        pending.push_str(&line);
        pending.push('\n');
        if trimmed.ends_with(';') {
            let _ = editor.add_history_entry(pending.trim());
            let sql = std::mem::take(&mut pending);
            report(run_script(session, &sql, args).await);
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}

fn report(r: anyhow::Result<()>) {
    if let Err(e) = r {
        eprintln!("error: {}", groundcheck::error::chain_text(e.chain()));
    }
}
