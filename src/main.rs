//! The `groundcheck` binary: a thin clap layer over the library (see `cli/`).

mod cli;

use std::process::ExitCode;

use clap::Parser;

// glibc's malloc and free took about a fifth of a label run (perf at 100k tasks).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
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
    // SIGINT and SIGTERM stop a verb at once: its temporary files and chunk folders are
    // removed, earlier outputs stay, exit 130 / 143. The long-running servers (gateway,
    // collect, scheduler, executor) end their sessions on those signals themselves.
    if !matches!(
        verb.as_str(),
        "gateway" | "collect" | "scheduler" | "executor" | "run"
    ) {
        runtime.spawn(interrupted());
    }
    let result = runtime.block_on(cli::run(args));
    // Interrupted: the verb may have failed on its removed temporaries; the signal's task
    // sweeps and exits with the signal's code.
    while STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            use groundcheck::error::{Kind, chain_text, kind_of, sentence};
            let text = chain_text(e.chain());
            // The cluster's transport errors arrive as DataFusion's text; the sentence
            // that names them says they are the cluster's.
            let (text, kind) = match sentence(&text) {
                Some(s) => (s, Kind::Upstream),
                None => (text, kind_of(e.chain())),
            };
            match kind {
                Kind::Bug => eprintln!(
                    "error: {text}\n(this is a bug in groundcheck: please report it with the command that caused it)"
                ),
                _ => eprintln!("error: {text}"),
            }
            ExitCode::from(kind.exit_code())
        }
    }
}

/// Set once a signal stopped the verb.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

async fn interrupted() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return;
    };
    let (code, name) = tokio::select! {
        _ = int.recv() => (130, "SIGINT"),
        _ = term.recv() => (143, "SIGTERM"),
    };
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
    // The verb's threads go on writing until the exit: sweep until a pass finds nothing.
    let mut n = 0;
    for _ in 0..20 {
        let k = groundcheck::output::remove_temporaries();
        n += k;
        if k == 0 && n > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let back = match groundcheck::output::set::roll_back() {
        Some((dir, paths)) => format!(
            "; {} output(s) it had replaced in {} rolled back",
            paths.len(),
            dir.display()
        ),
        None => String::new(),
    };
    eprintln!(
        "groundcheck: stopped by {name}; {n} temporary file(s) removed{back}, earlier outputs left as they were"
    );
    std::process::exit(code);
}
