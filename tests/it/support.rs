//! Helpers shared by the integration tests: running the binary, temp projects.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    // Read at run time (cargo sets it): a shared target dir may hold this binary built
    // from another checkout, whose path env!() would have baked in.
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

pub fn demo() -> PathBuf {
    root().join("datasets/demo")
}

/// The `groundcheck` binary, run in `dir`.
pub fn cmd(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_groundcheck"));
    c.current_dir(dir).env_remove("GROUNDCHECK_DATA");
    c
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(dir: &Path, args: &[&str]) -> Run {
    let mut c = cmd(dir);
    c.args(args);
    finish(c, RUN_LIMIT)
}

/// How long one run of the binary may take in a test before it is killed and the test
/// fails naming it (the suite's runner has a longer limit per test).
pub const RUN_LIMIT: Duration = Duration::from_secs(600);

/// Runs `c` (stdin empty, as `Command::output` does) and returns its code and output.
pub fn finish(mut c: Command, limit: Duration) -> Run {
    c.stdin(Stdio::null());
    let out = output_within(c, limit);
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `c` to its end within `limit`, its stdout and stderr captured. Past the limit it
/// kills the process and everything it started (its own process group) and panics naming
/// the command and what it had printed: no test waits on a child without a bound.
pub fn output_within(mut c: Command, limit: Duration) -> Output {
    let what = format!("{c:?}");
    c.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = c
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a child") {
            break status;
        }
        if Instant::now() >= deadline {
            kill_group(child.id());
            let _ = child.wait();
            let err = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
            panic!(
                "{what} did not finish within {} s: killed. Its stderr:\n{err}",
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // A process it started and left behind still holds the pipes: end it too.
    kill_group(child.id());
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// SIGKILL to the process group `pid` leads (children started with `process_group(0)`).
pub fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
    }
}

/// Runs and asserts exit code 0, returning stdout.
pub fn ok(dir: &Path, args: &[&str]) -> String {
    let r = run(dir, args);
    assert_eq!(r.code, 0, "groundcheck {args:?} failed:\n{}", r.stderr);
    r.stdout
}

/// `groundcheck sql` as CSV over the project `data`, with `--table NAME=PATH` overrides.
pub fn sql_csv(data: &Path, tables: &[(&str, &Path)], sql: &str) -> String {
    let overrides: Vec<String> = tables
        .iter()
        .map(|(name, path)| format!("{name}={}", path.display()))
        .collect();
    let mut args = vec!["sql", "--data", data.to_str().unwrap(), "--format", "csv"];
    for o in &overrides {
        args.extend(["--table", o.as_str()]);
    }
    args.push(sql);
    ok(&root(), &args)
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Every file below `dir` (relative path, bytes), in path order.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// The fixed-seed byte mutator of the fuzz tests (no new dependency): 1-4 edits per round,
/// each a cut, a repeated span, a flipped bit or an inserted token.
pub struct Mutator {
    x: u64,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator { x: seed }
    }

    /// A number below `n` (xorshift*).
    pub fn below(&mut self, n: usize) -> usize {
        self.x ^= self.x >> 12;
        self.x ^= self.x << 25;
        self.x ^= self.x >> 27;
        (self.x.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n.max(1) as u64) as usize
    }

    /// `seed` mutated: cuts up to `cut` bytes, repeats spans up to `span` bytes.
    pub fn mutate(&mut self, seed: &[u8], tokens: &[&[u8]], cut: usize, span: usize) -> Vec<u8> {
        let mut b = seed.to_vec();
        for _ in 0..1 + self.below(4) {
            let n = b.len();
            match self.below(4) {
                0 if n > 0 => {
                    let a = self.below(n);
                    let e = (a + self.below(cut)).min(n);
                    b.drain(a..e);
                }
                1 if n > 0 => {
                    let a = self.below(n);
                    let e = (a + self.below(span)).min(n);
                    let piece = b[a..e].to_vec();
                    let at = self.below(n);
                    b.splice(at..at, piece);
                }
                2 if n > 0 => {
                    let at = self.below(n);
                    b[at] ^= 1 << self.below(8);
                }
                _ => {
                    let at = self.below(n + 1);
                    let t = tokens[self.below(tokens.len())];
                    b.splice(at..at, t.iter().copied());
                }
            }
        }
        b
    }
}
