//! The `groundcheck` binary: a thin clap layer over the library (see `cli/`).

mod cli;

use std::process::ExitCode;

use clap::Parser;

// glibc's malloc and free took about a fifth of a label run (perf at 100k tasks).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's `mi_option_purge_delay` (15 in the mimalloc.h of both its v2 and v3).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

// Declared here: libmimalloc-sys declares it behind its `extended` feature, which needs
// the `cty` crate, not in Cargo.lock (and the symbol is linked either way).
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// The verbs that serve until stopped: they give freed memory back to the system.
const SERVERS: &[&str] = &["gateway", "collect", "scheduler", "executor", "run"];

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let verb = std::env::args().nth(1).unwrap_or_default();
    // A verb that ends keeps the memory it frees for its next use instead of returning it
    // after a second (mimalloc's purge delay): chunked labeling frees and takes back about
    // the same memory every chunk, and each page taken back is zeroed again (1M tasks:
    // 0.5M page faults and 2-3 s more wall time; benches/RESULTS.md). Its peak is what it
    // holds at most anyway. MIMALLOC_PURGE_DELAY, when set, still decides.
    if !SERVERS.contains(&verb.as_str()) && std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets an integer option of the allocator this binary links (`ALLOCATOR`);
        // mimalloc reads its options at each use.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
    // Ballista and DataFusion log through `log`: RUST_LOG shows it; the cluster verbs log
    // at info by default.
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
    if !SERVERS.contains(&verb.as_str()) {
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

#[cfg(test)]
mod tests {
    unsafe extern "C" {
        fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    }

    /// The option `main` sets is the purge delay: mimalloc's (v3) default for it is 1000
    /// ms, and the options beside it default to 1 (eager commit delay) and 0 (NUMA nodes).
    #[test]
    fn the_option_set_is_the_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads an integer option of the linked allocator.
        assert_eq!(unsafe { mi_option_get(super::MI_OPTION_PURGE_DELAY) }, 1000);
    }
}
