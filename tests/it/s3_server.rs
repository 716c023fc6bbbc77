//! A real S3-protocol server (`s3s-fs`) on 127.0.0.1 for the tests that read and write
//! `s3://`. No mock object store: the bytes cross HTTP with SigV4.
//!
//! The server binary comes from `scripts/setup.sh` (cargo install into
//! ~/.cache/groundcheck/tools). Without it the tests say so loudly and pass, except under
//! CI, where a missing server is a failure.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::{cmd, copy_dir, demo};

pub struct S3Server {
    child: Child,
    pub endpoint: String,
    pub root: tempfile::TempDir,
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn s3s_fs() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GROUNDCHECK_S3S_FS") {
        return Some(PathBuf::from(p));
    }
    let cached = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/groundcheck/tools/bin/s3s-fs"))
        .filter(|p| p.is_file());
    cached.or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("s3s-fs"))
                .find(|p| p.is_file())
        })
    })
}

/// Starts s3s-fs on a free loopback port with one bucket, `lake`, holding the demo
/// project under `projects/demo/`.
pub fn start() -> Option<S3Server> {
    let Some(bin) = s3s_fs() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "s3s-fs is not installed; scripts/setup.sh installs it"
        );
        eprintln!("\n*** SKIPPING S3 TEST: s3s-fs not found; run scripts/setup.sh ***\n");
        return None;
    };
    let root = tempfile::tempdir().unwrap();
    copy_dir(&demo(), &root.path().join("lake/projects/demo"));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(bin)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args([
            "--access-key",
            "gc-test-key",
            "--secret-key",
            "gc-test-secret",
        ])
        .arg(root.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start s3s-fs");
    let addr = format!("127.0.0.1:{port}");
    // Readiness, not speed: s3s-fs prints nothing when it listens, so try to connect,
    // up to 400 times 50 ms apart.
    let listening = (0..400).any(|_| {
        TcpStream::connect(&addr).is_ok() || {
            std::thread::sleep(Duration::from_millis(50));
            false
        }
    });
    assert!(listening, "s3s-fs did not listen on {addr}");
    Some(S3Server {
        child,
        endpoint: format!("http://{addr}"),
        root,
    })
}

impl S3Server {
    /// The AWS environment that reaches this server.
    pub fn env<'a>(&self, c: &'a mut Command) -> &'a mut Command {
        c.env("AWS_ACCESS_KEY_ID", "gc-test-key")
            .env("AWS_SECRET_ACCESS_KEY", "gc-test-secret")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ENDPOINT", &self.endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env_remove("AWS_SESSION_TOKEN")
            .env_remove("AWS_PROFILE")
    }

    pub fn run(&self, dir: &Path, args: &[&str]) -> crate::support::Run {
        let mut c = cmd(dir);
        self.env(c.args(args));
        crate::support::finish(c, crate::support::RUN_LIMIT)
    }

    pub fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let r = self.run(dir, args);
        assert_eq!(r.code, 0, "groundcheck {args:?}:\n{}", r.stderr);
        r.stdout
    }
}
