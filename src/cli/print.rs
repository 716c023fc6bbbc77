//! Everything a verb prints to stdout goes through here (`out!`, `outln!`, `stdout()`):
//! a closed pipe (`groundcheck report | head`) ends the run quietly with exit 0, as
//! ripgrep and cat end; another write error ends it with one sentence and exit 2.
//! Outputs are written and renamed into place before a verb prints, so nothing is lost.

use std::io::{ErrorKind, StdoutLock, Write};

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
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(2);
}
