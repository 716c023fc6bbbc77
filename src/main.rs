//! The `groundcheck` binary: a thin clap layer over the library (see `cli/`).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let args = cli::Cli::parse();
    // Ballista and DataFusion log through `log`: RUST_LOG shows it; the cluster verbs log
    // at info by default.
    let verb = std::env::args().nth(1).unwrap_or_default();
    let default = if verb == "scheduler" || verb == "executor" {
        "info"
    } else {
        "off"
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(default)).init();
    // Deep plans (the labels query nests ~100 operators) recurse deeply when a cluster
    // encodes and decodes them; Ballista's own binaries run with 32 MiB stacks too.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(cli::run(args)) {
        Ok(code) => code,
        Err(e) => {
            if let Some(gc) = e.downcast_ref::<groundcheck::Error>()
                && groundcheck::output::is_broken_pipe(gc)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// A closed pipe (`groundcheck report | head`, `functions | true`) ends the run quietly with
/// exit 0, as `cat` or `grep` would end: every printing verb prints with `println!`, which
/// panics on EPIPE; the hook turns exactly that panic into an exit, in one place for all
/// verbs. Outputs are written (and renamed into place) before anything is printed.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let p = info.payload();
        let msg = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if msg.starts_with("failed printing to stdout") && msg.contains("os error 32") {
            std::process::exit(0);
        }
        default(info)
    }));
}
