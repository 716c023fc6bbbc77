//! How the long-running servers (`collect`, the gateway's HTTP face) stop: after the
//! first SIGINT/SIGTERM they stop taking work and finish what they hold, but a client
//! that stops in the middle of a request cannot keep them alive (each waits a bounded
//! grace), and a second signal ends the process at once.

use std::future::Future;
use std::time::Duration;

/// How long a server waits for its open connections once told to stop.
pub const GRACE: Duration = Duration::from_secs(5);

/// `f` to its end, or None after `grace`: a graceful shutdown that cannot hang.
pub async fn within<F: Future>(grace: Duration, f: F) -> Option<F::Output> {
    tokio::time::timeout(grace, f).await.ok()
}

/// From now on, the next SIGINT or SIGTERM ends the process at once (exit 130 or 143),
/// saying so: for after the first signal, while a server finishes what it holds.
pub fn second_signal_exits(what: &'static str) {
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        let code = tokio::select! {
            _ = int.recv() => 130,
            _ = term.recv() => 143,
        };
        eprintln!("{what}: a second signal; stopping at once, without finishing");
        std::process::exit(code);
    });
}
