//! Reading a project through `s3://` from a real S3-protocol server (s3_server.rs).

use std::net::TcpStream;

use crate::s3_server::start;
use crate::support::{cmd, copy_dir, demo, tree};

const Q: &str = "SELECT server, count(*) AS steps, sum(input_tokens) AS tokens, max(as_of) AS as_of FROM steps GROUP BY server ORDER BY server; SELECT case_id, gold.answer, gold.\"window\".\"start\" AS ws FROM cases WHERE case_id LIKE '%-00%' ORDER BY case_id";

#[test]
fn s3_project_reads_like_the_local_one() {
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let local = s3.ok(
        tmp.path(),
        &["sql", "--data", d.to_str().unwrap(), "--format", "csv", Q],
    );
    let remote = s3.ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "s3://lake/projects/demo",
            "--format",
            "csv",
            Q,
        ],
    );
    assert_eq!(local, remote);
    assert!(
        remote.contains("generic-warehouse,178,361500,2026-07-02T12:00:04Z"),
        "{remote}"
    );

    // Ingest from S3 gives the same bytes as ingest from the local copy.
    s3.ok(
        tmp.path(),
        &[
            "ingest",
            "-q",
            "--data",
            "s3://lake/projects/demo/",
            "--out",
            "from-s3",
        ],
    );
    s3.ok(
        tmp.path(),
        &[
            "ingest",
            "-q",
            "--data",
            d.to_str().unwrap(),
            "--out",
            "from-local",
        ],
    );
    assert!(tree(&tmp.path().join("from-s3")) == tree(&tmp.path().join("from-local")));

    // Parquet on S3 reads too: put the ingested project in the bucket.
    copy_dir(
        &tmp.path().join("from-s3"),
        &s3.root.path().join("lake/parquet/demo"),
    );
    let from_parquet = s3.ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "s3://lake/parquet/demo",
            "--format",
            "csv",
            Q,
        ],
    );
    assert_eq!(local, from_parquet);
}

#[test]
fn s3_globs_and_errors_name_the_object() {
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = s3.ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "s3://lake/projects/demo",
            "--format",
            "csv",
            "--table",
            "steps=s3://lake/projects/demo/traces/*task*.jsonl",
            "SELECT DISTINCT server FROM steps",
        ],
    );
    assert_eq!(out, "server\ntask-specific\n");

    let bad = s3.root.path().join("lake/projects/demo/cases.jsonl");
    let mut text = std::fs::read_to_string(&bad).unwrap();
    text.push_str("{\"case_id\": 5}\n");
    std::fs::write(&bad, text).unwrap();
    let r = s3.run(
        tmp.path(),
        &[
            "sql",
            "--data",
            "s3://lake/projects/demo",
            "SELECT count(*) FROM cases",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "s3://lake/projects/demo/cases.jsonl:41: field `case_id`: expected string, found integer"
        ),
        "{}",
        r.stderr
    );
    let r = s3.run(
        tmp.path(),
        &[
            "sql",
            "--data",
            "s3://lake/projects/demo",
            "--table",
            "steps=s3://lake/nothing/",
            "SELECT 1",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("table steps: no files at s3://lake/nothing"),
        "{}",
        r.stderr
    );
}

#[test]
fn s3_as_the_output_of_every_batch_verb() {
    // `--out s3://` used to write a local folder `./s3:/…` and say "-> s3://…". Now the
    // outputs land in the bucket, byte for byte what a local --out gets, with no
    // temporary keys left; a verb that cannot write there says so before writing.
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let dd = d.to_str().unwrap();
    let bucket = s3.root.path().join("lake");
    for (local, remote) in [
        ("local/pq", "s3://lake/out/pq"),
        ("local/r", "s3://lake/out/r"),
    ] {
        let verb: &[&str] = if local.ends_with("pq") {
            &["ingest", "-q", "--data", dd]
        } else {
            &["report", "-q", "--data", dd]
        };
        s3.ok(tmp.path(), &[verb, &["--out", local]].concat());
        let r = s3.run(tmp.path(), &[verb, &["--out", remote]].concat());
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stderr.contains("uploaded "), "{}", r.stderr);
        let in_bucket = bucket.join(remote.trim_start_matches("s3://lake/"));
        assert!(
            tree(&tmp.path().join(local)) == tree(&in_bucket),
            "{remote} differs from {local}"
        );
    }
    assert!(
        !tmp.path().join("s3:").exists(),
        "no local folder named s3:"
    );
    // The report reads the project it ingested into the bucket.
    s3.ok(
        tmp.path(),
        &[
            "label",
            "-q",
            "--data",
            "s3://lake/out/pq",
            "--out",
            "s3://lake/out/labels",
        ],
    );
    assert!(bucket.join("out/labels/labels.parquet").is_file());
    let snapshot = crate::support::root().join("tests/fixtures/drift/warehouse-candidate.json");
    s3.ok(
        tmp.path(),
        &[
            "snapshot",
            snapshot.to_str().unwrap(),
            "--out",
            "s3://lake/out/snap",
        ],
    );
    assert!(bucket.join("out/snap/snapshots/generic-warehouse").is_dir());
    // No temporary key is left anywhere in the bucket.
    let mut stack = vec![bucket.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            assert!(
                !p.to_string_lossy().contains("groundcheck-tmp"),
                "{}",
                p.display()
            );
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    // A failing verb uploads nothing; a verb that writes locally only refuses at once.
    let r = s3.run(
        tmp.path(),
        &[
            "report",
            "-q",
            "--data",
            "s3://lake/nothing-here",
            "--out",
            "s3://lake/out/empty",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!bucket.join("out/empty").exists());
    let r = s3.run(
        tmp.path(),
        &["gateway", "--out", "s3://lake/out/gw", "--", "true"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("writes to a local folder only"),
        "{}",
        r.stderr
    );
    // Credentials the server refuses: one clear sentence naming the object, exit 2, and
    // nothing in the bucket.
    let out = s3
        .env(cmd(tmp.path()).args([
            "ingest",
            "-q",
            "--data",
            dd,
            "--out",
            "s3://lake/out/denied",
        ]))
        .env("AWS_SECRET_ACCESS_KEY", "wrong")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write s3://lake/out/denied/"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!bucket.join("out/denied").exists());
}

/// A TCP relay to the S3 server that "dies" (stops relaying and listening) halfway through
/// the `nth` PUT request it sees.
struct DyingRelay {
    pub endpoint: String,
}

impl DyingRelay {
    fn start(to: &str, nth: usize) -> DyingRelay {
        use std::io::{Read, Write};
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let to = to.trim_start_matches("http://").to_string();
        let puts = Arc::new(AtomicUsize::new(0));
        let dead = Arc::new(AtomicBool::new(false));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if dead.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = conn else { continue };
                let Ok(server) = TcpStream::connect(&to) else {
                    continue;
                };
                let (mut c_in, mut s_out) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                let (mut s_in, mut c_out) = (server, client);
                let (puts, dead2) = (puts.clone(), dead.clone());
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 64 << 10];
                    while let Ok(n) = c_in.read(&mut buf) {
                        if n == 0 || dead2.load(Ordering::SeqCst) {
                            break;
                        }
                        let chunk = &buf[..n];
                        let seen = chunk.windows(5).filter(|w| w == b"PUT /").count();
                        if seen > 0 && puts.fetch_add(seen, Ordering::SeqCst) + seen >= nth {
                            let _ = s_out.write_all(&chunk[..n / 2]);
                            dead2.store(true, Ordering::SeqCst);
                            break;
                        }
                        if s_out.write_all(chunk).is_err() {
                            break;
                        }
                    }
                    let _ = s_out.shutdown(std::net::Shutdown::Both);
                    let _ = c_in.shutdown(std::net::Shutdown::Both);
                });
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut s_in, &mut c_out);
                    let _ = c_out.shutdown(std::net::Shutdown::Both);
                });
            }
        });
        DyingRelay { endpoint }
    }
}

#[test]
fn s3_a_clean_rerun_removes_the_stale_rejects_from_the_bucket() {
    // Locally a clean rerun removes the rejects.jsonl an earlier run left; into a bucket it
    // did not (the verb writes into a fresh staging folder): now what the verb removes is
    // deleted from the bucket with the upload, and the folder is what a local run leaves.
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad");
    copy_dir(&demo(), &bad);
    let trace = std::fs::read_dir(bad.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let mut text = std::fs::read_to_string(&trace).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&trace, text).unwrap();
    let url = "s3://lake/out/rejects";
    let in_bucket = s3.root.path().join("lake/out/rejects");
    let b = bad.to_str().unwrap();
    s3.ok(
        tmp.path(),
        &[
            "report",
            "-q",
            "--data",
            b,
            "--on-bad-line",
            "skip",
            "--out",
            url,
        ],
    );
    assert!(in_bucket.join("rejects.jsonl").is_file());
    let dd = demo();
    let dd = dd.to_str().unwrap();
    s3.ok(tmp.path(), &["report", "-q", "--data", dd, "--out", url]);
    s3.ok(
        tmp.path(),
        &["report", "-q", "--data", dd, "--out", "local"],
    );
    assert!(!in_bucket.join("rejects.jsonl").exists());
    assert_eq!(visible(&in_bucket), tree(&tmp.path().join("local")));
}

/// The objects of a bucket folder that readers take for outputs: not under a hidden name.
fn visible(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .filter(|(n, _)| !n.split('/').any(|p| p.starts_with('.')))
        .collect()
}

#[test]
fn s3_server_dying_mid_upload_leaves_the_earlier_set_whole() {
    // An earlier report is in the bucket. A second report's upload is cut when the server
    // goes away halfway through its third PUT (each file goes first to a hidden staging
    // prefix): the verb fails with one sentence naming the object it could not write, and
    // what readers see is the earlier set, byte for byte. Cut later, between the renames
    // into place, the marker stays and a reader of the folder refuses the mix.
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("gen");
    s3.ok(
        tmp.path(),
        &[
            "gen",
            "--tasks",
            "40",
            "--seed",
            "3",
            "--out",
            project.to_str().unwrap(),
        ],
    );
    let dd = demo();
    let dd = dd.to_str().unwrap();
    let gd = project.to_str().unwrap();
    s3.ok(
        tmp.path(),
        &["report", "-q", "--data", gd, "--out", "earlier"],
    );
    s3.ok(
        tmp.path(),
        &["report", "-q", "--data", dd, "--out", "local"],
    );
    let n = tree(&tmp.path().join("local")).len();
    for (folder, nth) in [("dying", 3), ("dying-in-renames", n + 2)] {
        let url = format!("s3://lake/out/{folder}");
        s3.ok(tmp.path(), &["report", "-q", "--data", gd, "--out", &url]);
        let in_bucket = s3.root.path().join("lake/out").join(folder);
        assert_eq!(visible(&in_bucket), tree(&tmp.path().join("earlier")));
        let relay = DyingRelay::start(&s3.endpoint, nth);
        let out = s3
            .env(
                crate::support::cmd(tmp.path()).args(["report", "-q", "--data", dd, "--out", &url]),
            )
            .env("AWS_ENDPOINT", &relay.endpoint)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A connection cut mid-upload is the store's failure: exit 3.
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains(&format!("cannot write {url}/")), "{stderr}");
        assert_eq!(
            stderr.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{stderr}"
        );
        if nth == 3 {
            assert_eq!(
                visible(&in_bucket),
                tree(&tmp.path().join("earlier")),
                "a cut upload changed what readers see"
            );
        } else {
            let r = s3.run(tmp.path(), &["label", "-q", "--data", &url, "--out", "l2"]);
            assert_eq!(r.code, 2, "{}", r.stderr);
            assert!(
                r.stderr.contains("was cut while it replaced the files"),
                "{}",
                r.stderr
            );
            // A complete upload clears it.
            s3.ok(tmp.path(), &["report", "-q", "--data", dd, "--out", &url]);
            assert_eq!(visible(&in_bucket), tree(&tmp.path().join("local")));
            assert!(!in_bucket.join(".groundcheck-set.json").exists());
        }
    }
}
