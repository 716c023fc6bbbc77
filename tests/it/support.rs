//! Helpers shared by the integration tests: running the binary, temp projects.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    let out: Output = cmd(dir).args(args).output().expect("run groundcheck");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
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
