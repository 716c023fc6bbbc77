//! Everything a verb prints to stdout goes through here (`out!`, `outln!`, `stdout()`):
//! a closed pipe (`groundcheck report | head`) ends the run quietly, as ripgrep and cat
//! end: exit 0, or the code a gate already decided (`on_closed_pipe`: `drift | head` with
//! a blocking change still exits 1); another write error ends it with one sentence and
//! exit 2. Outputs are written and renamed into place before a verb prints.

use std::io::{ErrorKind, StdoutLock, Write};
use std::sync::Mutex;

/// The exit code, and what to say on stderr, when stdout closes early.
static ON_CLOSE: Mutex<Option<(i32, String)>> = Mutex::new(None);

/// When stdout closes from now on, say `message` on stderr and exit with `code` (a
/// verdict already reached), not 0.
pub fn on_closed_pipe(code: i32, message: String) {
    if let Ok(mut slot) = ON_CLOSE.lock() {
        *slot = Some((code, message));
    }
}

/// `print!` through the one stdout writer.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!($crate::cli::print::stdout(), $($t)*);
    }};
}

/// `println!` through the one stdout writer.
macro_rules! outln {
    () => {{
        use std::io::Write as _;
        let _ = writeln!($crate::cli::print::stdout());
    }};
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::cli::print::stdout(), $($t)*);
    }};
}

pub(crate) use {out, outln};

/// Standard output, locked; a failed write does not return.
pub struct Stdout(StdoutLock<'static>);

pub fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(|e| end(&e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(|e| end(&e))
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        if let Err(e) = self.0.flush() {
            end(&e);
        }
    }
}

/// Ends the process on a write error: 0 for a closed pipe, else 2. Temporaries a verb
/// still has open are removed first.
fn end(e: &std::io::Error) -> ! {
    groundcheck::output::remove_temporaries();
    if e.kind() == ErrorKind::BrokenPipe {
        let decided = ON_CLOSE.lock().ok().and_then(|s| s.clone());
        match decided {
            Some((code, message)) => {
                eprintln!("{message}");
                std::process::exit(code);
            }
            None => std::process::exit(0),
        }
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(2);
}
