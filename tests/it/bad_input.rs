//! Each kind of bad input line: a clear error naming file, line and field under
//! `--on-bad-line fail`; under `skip`, the line kept unchanged in OUT/rejects.jsonl, the
//! count printed, and every good line still read.

use std::path::Path;

use crate::support::{ok, run};

const GOOD: &str =
    r#"{"run_id":"r1","server":"s","trace_id":"t1","step":1,"kind":"user","text":"hi"}"#;

/// A project whose traces/a.jsonl has a good line, `bad` as line 2, and a good line 3.
fn project(dir: &Path, bad: &[u8]) {
    let traces = dir.join("p/traces");
    std::fs::create_dir_all(&traces).unwrap();
    let mut body = Vec::new();
    body.extend_from_slice(GOOD.as_bytes());
    body.push(b'\n');
    body.extend_from_slice(bad);
    body.push(b'\n');
    body.extend_from_slice(GOOD.replace("\"step\":1", "\"step\":3").as_bytes());
    body.push(b'\n');
    std::fs::write(traces.join("a.jsonl"), body).unwrap();
}

fn fails_with(bad: &[u8], expected: &str, extra: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    project(tmp.path(), bad);
    let mut args = vec!["sql", "--data", "p", "SELECT count(*) FROM steps"];
    args.extend_from_slice(extra);
    let r = run(tmp.path(), &args);
    assert_eq!(r.code, 2, "stdout: {}", r.stdout);
    let want = format!("p/traces/a.jsonl:2: {expected}");
    assert!(
        r.stderr.contains(&want),
        "wanted `{want}` in:\n{}",
        r.stderr
    );
    // The same under ingest, which must not leave a half-written file behind.
    let mut args = vec!["ingest", "--data", "p", "--out", "out"];
    args.extend_from_slice(extra);
    let r = run(tmp.path(), &args);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(&want), "{}", r.stderr);
    assert!(!tmp.path().join("out/traces.parquet").exists());
}

/// `ingest` of project `p` into `out`, bad lines skipped to the rejects file.
const INGEST_SKIPPING: &[&str] = &[
    "ingest",
    "--data",
    "p",
    "--out",
    "out",
    "--on-bad-line",
    "skip",
];

fn skipped_as(bad: &[u8], extra: &[&str]) -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    project(tmp.path(), bad);
    let mut args = INGEST_SKIPPING.to_vec();
    args.extend_from_slice(extra);
    let r = run(tmp.path(), &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("rejected 1 input line(s)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("steps                     2 rows"),
        "{}",
        r.stdout
    );
    let steps = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "out",
            "--format",
            "csv",
            "SELECT step FROM steps ORDER BY step",
        ],
    );
    assert_eq!(steps, "step\n1\n3\n");
    let rejects = std::fs::read_to_string(tmp.path().join("out/rejects.jsonl")).unwrap();
    let lines: Vec<_> = rejects.lines().collect();
    assert_eq!(lines.len(), 1, "{rejects}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["table"], "steps");
    assert_eq!(v["line"], 2);
    assert!(v["file"].as_str().unwrap().ends_with("p/traces/a.jsonl"));
    v
}

#[test]
fn malformed_json() {
    let bad = br#"{"run_id":"r1","server":"s","#;
    fails_with(bad, "malformed JSON: EOF while parsing", &[]);
    let v = skipped_as(bad, &[]);
    assert_eq!(v["raw"], std::str::from_utf8(bad).unwrap());
    assert_eq!(v["field"], serde_json::Value::Null);
}

#[test]
fn wrong_type() {
    let bad = GOOD.replace("\"step\":1", "\"step\":\"two\"");
    fails_with(
        bad.as_bytes(),
        "field `step`: expected integer, found string",
        &[],
    );
    let v = skipped_as(bad.as_bytes(), &[]);
    assert_eq!(v["field"], "step");
    assert_eq!(v["raw"], bad);
}

#[test]
fn missing_required_field() {
    let bad = GOOD.replace("\"trace_id\":\"t1\",", "");
    fails_with(
        bad.as_bytes(),
        "field `trace_id`: missing required field",
        &[],
    );
    assert_eq!(
        skipped_as(bad.as_bytes(), &[])["reason"],
        "missing required field"
    );
}

#[test]
fn value_outside_its_set() {
    let bad = GOOD.replace("\"kind\":\"user\"", "\"kind\":\"tool_use\"");
    fails_with(
        bad.as_bytes(),
        "field `kind`: expected one of user | assistant",
        &[],
    );
}

/// Issue #44: a regular expression that does not compile is a bad line naming file, line
/// and field as the table is read, under sql and ingest alike, not a compute error later;
/// skipped, it goes to the rejects file.
#[test]
fn a_bad_id_scheme_regex_is_a_bad_line() {
    let tmp = tempfile::tempdir().unwrap();
    let ctx = tmp.path().join("p/context");
    std::fs::create_dir_all(&ctx).unwrap();
    std::fs::write(
        ctx.join("id_schemes.jsonl"),
        "{\"scheme\":\"a\",\"regex\":\"A-[0-9]{3}\"}\n{\"scheme\":\"b\",\"regex\":\"([unclosed\"}\n",
    )
    .unwrap();
    let want = "p/context/id_schemes.jsonl:2: field `regex`: not a regular expression: unclosed character class";
    for args in [
        &["sql", "--data", "p", "SELECT count(*) FROM id_schemes"][..],
        &["ingest", "--data", "p", "--out", "out"][..],
    ] {
        let r = run(tmp.path(), args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stdout);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
    }
    let r = run(
        tmp.path(),
        &[
            "sql",
            "--data",
            "p",
            "--on-bad-line",
            "skip",
            "--out",
            "o",
            "--format",
            "csv",
            "SELECT scheme FROM id_schemes",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "scheme\na\n");
    let rejects = std::fs::read_to_string(tmp.path().join("o/rejects.jsonl")).unwrap();
    assert!(rejects.contains("([unclosed"), "{rejects}");
}

#[test]
fn invalid_utf8() {
    let mut bad = GOOD.as_bytes().to_vec();
    bad.splice(60..60, [0xff, 0xfe]);
    fails_with(&bad, "invalid UTF-8 at byte 60 of the line", &[]);
    let v = skipped_as(&bad, &[]);
    use base64::Engine;
    let raw = base64::engine::general_purpose::STANDARD
        .decode(v["raw_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(raw, bad, "the rejected line must be kept byte for byte");
}

#[test]
fn oversized_line() {
    use base64::Engine;
    let bad = GOOD.replace("\"hi\"", &format!("\"{}\"", "x".repeat(5000)));
    let expected = format!(
        "line of {} bytes is longer than the limit of 1000 bytes",
        bad.len()
    );
    fails_with(bad.as_bytes(), &expected, &["--max-line-bytes", "1000"]);
    let v = skipped_as(bad.as_bytes(), &["--max-line-bytes", "1000"]);
    assert_eq!(v["bytes"], bad.len());
    let prefix = base64::engine::general_purpose::STANDARD
        .decode(v["raw_prefix_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(prefix, bad.as_bytes()[..1024]);
    assert_eq!(v["byte_offset"], GOOD.len() + 1);
}

#[test]
fn a_bad_nested_field_is_named_by_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("p")).unwrap();
    let seed = std::fs::read_to_string(crate::support::demo().join("cases.jsonl")).unwrap();
    let first = seed
        .lines()
        .next()
        .unwrap()
        .replace("\"2026-06-30\"", "\"30/06/2026\"");
    std::fs::write(tmp.path().join("p/cases.jsonl"), format!("\n{first}\n")).unwrap();
    let r = run(tmp.path(), &["sql", "--data", "p", "SELECT * FROM cases"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("p/cases.jsonl:2: field `gold.window.end`: expected a date YYYY-MM-DD, found \"30/06/2026\""),
        "{}",
        r.stderr
    );
}

#[test]
fn blank_lines_and_crlf_are_fine() {
    let tmp = tempfile::tempdir().unwrap();
    let traces = tmp.path().join("p/traces");
    std::fs::create_dir_all(&traces).unwrap();
    std::fs::write(traces.join("a.jsonl"), format!("{GOOD}\r\n\r\n  \n{GOOD}")).unwrap();
    let out = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "p",
            "--format",
            "csv",
            "SELECT count(*) AS n FROM steps",
        ],
    );
    assert_eq!(out, "n\n2\n");
}

#[test]
fn a_query_that_reads_a_table_twice_counts_each_reject_once() {
    let tmp = tempfile::tempdir().unwrap();
    project(tmp.path(), b"not json");
    let r = run(
        tmp.path(),
        &[
            "sql",
            "--data",
            "p",
            "--on-bad-line",
            "skip",
            "--format",
            "csv",
            "SELECT (SELECT count(*) FROM steps) + (SELECT count(*) FROM steps) AS n",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "n\n4\n");
    assert!(
        r.stderr.contains("rejected 1 input line(s)"),
        "{}",
        r.stderr
    );
}

/// Lines are checked in parallel parts of a batch: bad lines anywhere in a long file are
/// still named by their own line, counted once, and every good line is kept in order.
#[test]
fn bad_lines_in_a_long_file_keep_their_numbers_and_order() {
    let tmp = tempfile::tempdir().unwrap();
    let traces = tmp.path().join("p/traces");
    std::fs::create_dir_all(&traces).unwrap();
    let n = 20_000;
    let bad: Vec<usize> = vec![2, 700, 4_097, 8_192, 8_193, 12_345, 19_999];
    let mut body = String::new();
    for i in 1..=n {
        if bad.contains(&i) {
            body.push_str(&format!("{{\"run_id\":\"r1\",\"step\":\"x{i}\"}}\n"));
        } else if i % 1000 == 0 {
            body.push('\n');
        } else {
            body.push_str(&GOOD.replace("\"step\":1", &format!("\"step\":{i}")));
            body.push('\n');
        }
    }
    std::fs::write(traces.join("a.jsonl"), body).unwrap();
    let r = run(
        tmp.path(),
        &["sql", "--data", "p", "SELECT count(*) FROM steps"],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("p/traces/a.jsonl:2: "), "{}", r.stderr);
    ok(tmp.path(), &[INGEST_SKIPPING, &["-q"]].concat());
    let rejects = std::fs::read_to_string(tmp.path().join("out/rejects.jsonl")).unwrap();
    let lines: Vec<u64> = rejects
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["line"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, bad.iter().map(|&i| i as u64).collect::<Vec<_>>());
    let blank = (1..=n)
        .filter(|i| i % 1000 == 0 && !bad.contains(i))
        .count();
    let steps = crate::support::sql_csv(
        &tmp.path().join("out"),
        &[],
        "SELECT count(*) AS n, min(step) AS lo, max(step) AS hi, \
         bool_and(step > prev) AS ordered FROM \
         (SELECT step, lag(step, 1, 0) OVER () AS prev FROM steps)",
    );
    assert_eq!(
        steps,
        format!(
            "n,lo,hi,ordered\n{},1,{},true\n",
            n - bad.len() - blank,
            n - 2
        )
    );
}

/// A bad line met while labeling (in one pass or in chunks) stops the run and leaves no
/// temporary file behind.
#[test]
fn a_failed_label_run_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    project(tmp.path(), br#"{"run_id":"r1","step":"two"}"#);
    for steps in ["0", "1"] {
        let r = run(
            tmp.path(),
            &[
                "label",
                "--data",
                "p",
                "--out",
                "out",
                "--chunk-steps",
                steps,
            ],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("p/traces/a.jsonl:2: "), "{}", r.stderr);
        let left: Vec<String> = std::fs::read_dir(tmp.path().join("out"))
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert!(left.is_empty(), "--chunk-steps {steps}: {left:?}");
    }
}

/// Steps and cases are split into chunks side by side; when both have a bad line, the
/// error is the steps' one every time, as when they were read one after the other.
#[test]
fn of_two_bad_tables_the_steps_error_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    // Long enough that `--chunk-steps 1` makes several chunks (steps are estimated from
    // the size of JSON lines).
    let long = GOOD.replace("\"hi\"", &format!("\"{}\"", "h".repeat(4000)));
    project(tmp.path(), br#"{"run_id":"r1","step":"two"}"#);
    let traces = tmp.path().join("p/traces/a.jsonl");
    let mut body = std::fs::read_to_string(&traces).unwrap();
    body.push_str(&long);
    body.push('\n');
    std::fs::write(&traces, body).unwrap();
    std::fs::write(
        tmp.path().join("p/cases.jsonl"),
        "{\"case_id\":\"c1\",\"question\":\"q\",\"gold\":{\"answer\":\"1\"}}\n{\"case_id\": 7}\n",
    )
    .unwrap();
    for _ in 0..3 {
        let r = run(
            tmp.path(),
            &["label", "--data", "p", "--out", "out", "--chunk-steps", "1"],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("p/traces/a.jsonl:2: "), "{}", r.stderr);
        assert!(!r.stderr.contains("cases.jsonl"), "{}", r.stderr);
    }
}

#[test]
fn label_and_report_with_nothing_to_label_fail_and_leave_earlier_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    // A wrong --data: no project there.
    let missing = tmp.path().join("no-such-project");
    for verb in ["label", "report"] {
        let r = crate::support::run(
            &crate::support::root(),
            &[verb, "--data", missing.to_str().unwrap(), "--out", o, "-q"],
        );
        assert_eq!(r.code, 2, "{verb}: {}", r.stderr);
        assert_eq!(
            r.stderr,
            format!("error: cannot open {}: no such folder\n", missing.display()),
            "{verb}"
        );
        assert!(!out.join("labels.jsonl").exists(), "{verb}");
    }
    // Traces without a case_id: labels from an earlier run stay as they were.
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(proj.join("traces")).unwrap();
    std::fs::copy(
        crate::support::demo().join("cases.jsonl"),
        proj.join("cases.jsonl"),
    )
    .unwrap();
    std::fs::write(
        proj.join("traces/t.jsonl"),
        "{\"run_id\":\"r\",\"server\":\"s\",\"trace_id\":\"t\",\"step\":1,\"kind\":\"user\",\"text\":\"hi\"}\n",
    )
    .unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("labels.jsonl"), "earlier\n").unwrap();
    let r = crate::support::run(
        &crate::support::root(),
        &["label", "--data", proj.to_str().unwrap(), "--out", o, "-q"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("no task to label: no step of the traces at "),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(out.join("labels.jsonl")).unwrap(),
        "earlier\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    // --allow-empty: the script that wants empty outputs gets them.
    let r = crate::support::run(
        &crate::support::root(),
        &[
            "label",
            "--data",
            proj.to_str().unwrap(),
            "--out",
            o,
            "-q",
            "--allow-empty",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(out.join("labels.jsonl")).unwrap(),
        ""
    );
}

#[test]
fn sigint_and_sigterm_stop_a_report_and_leave_no_temporaries() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("gen");
    crate::support::ok(
        &crate::support::root(),
        &[
            "gen",
            "--tasks",
            "6000",
            "--seed",
            "1",
            "--out",
            data.to_str().unwrap(),
        ],
    );
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let out = tmp.path().join(format!("out-{signal}"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("labels.jsonl"), "earlier\n").unwrap();
        // Small chunks: a chunk folder exists for most of the run.
        let child = crate::support::cmd(&crate::support::root())
            .args([
                "report",
                "--data",
                data.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .args(["--chunk-steps", "2000", "-q"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let chunks = || {
            std::fs::read_dir(&out)
                .unwrap()
                .filter_map(|e| e.ok())
                .any(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(".groundcheck-chunks-")
                })
        };
        let mut seen = false;
        for _ in 0..600 {
            if chunks() {
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(seen, "the run made no chunk folder to interrupt");
        unsafe { libc::kill(child.id() as i32, signal) };
        let done = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(code), "{stderr}");
        assert!(
            stderr.contains("temporary file(s) removed, earlier outputs left as they were"),
            "{stderr}"
        );
        let left: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, vec!["labels.jsonl".to_string()], "signal {signal}");
        assert_eq!(
            std::fs::read_to_string(out.join("labels.jsonl")).unwrap(),
            "earlier\n"
        );
    }
}

#[test]
fn a_report_that_fails_after_writing_leaves_the_earlier_set_whole() {
    // Issue #44: a verb that failed (or was stopped) after renaming some of its outputs
    // into place left new labels beside an old report. Now the earlier set comes back,
    // byte for byte, with nothing of the failed run left; and temporaries a killed run
    // left are removed by the next verb that writes there.
    let tmp = tempfile::tempdir().unwrap();
    let root = crate::support::root();
    let project = tmp.path().join("gen");
    let out = tmp.path().join("out");
    let (g, o) = (project.to_str().unwrap(), out.to_str().unwrap());
    crate::support::ok(&root, &["gen", "--tasks", "40", "--seed", "3", "--out", g]);
    crate::support::ok(&root, &["report", "-q", "--data", g, "--out", o]);
    let earlier = crate::support::tree(&out);
    std::fs::write(
        out.join(".report.json.tmp-4294967290"),
        "left by a killed run",
    )
    .unwrap();
    let blocker = tmp.path().join("history-is-a-file");
    std::fs::write(&blocker, "").unwrap();
    let demo = crate::support::demo();
    let r = crate::support::run(
        &root,
        &[
            "report",
            "-q",
            "--data",
            demo.to_str().unwrap(),
            "--out",
            o,
            "--history",
            blocker.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim().lines().count(),
        1,
        "one sentence: {}",
        r.stderr
    );
    assert!(crate::support::tree(&out) == earlier, "{}", r.stderr);
    // Without the failure the new set is committed: no journal, no earlier versions kept.
    crate::support::ok(
        &root,
        &["report", "-q", "--data", demo.to_str().unwrap(), "--out", o],
    );
    let names: Vec<String> = crate::support::tree(&out)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    assert!(crate::support::tree(&out) != earlier);
}

#[test]
fn a_hostile_query_in_one_trace_does_not_lose_the_night() {
    // Issue #22: a run_sql argument with a 40,000-term expression overflowed the stack in
    // the SQL analysis (SIGABRT) and the whole report was lost. Now that call gets a
    // reason and every other task is labeled as before.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("p");
    crate::support::copy_dir(&crate::support::demo(), &data);
    let trace = data.join("traces/run-demo-generic-warehouse.jsonl");
    let text = std::fs::read_to_string(&trace).unwrap();
    let line = text
        .lines()
        .find(|l| {
            l.contains("\"case_id\": \"emea-active-q2-017\"") && l.contains("\"tool\": \"run_sql\"")
        })
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    let terms: Vec<String> = (0..40_000)
        .map(|i| format!("region_code = 'R{i}'"))
        .collect();
    v["arguments"]["sql"] = serde_json::json!(format!(
        "SELECT COUNT(*) FROM customers WHERE {}",
        terms.join(" OR ")
    ));
    v["call_id"] = serde_json::json!("c-hostile");
    v["step"] = serde_json::json!(99);
    std::fs::write(&trace, format!("{text}{v}\n")).unwrap();
    let r = run(
        tmp.path(),
        &[
            "report",
            "-q",
            "--data",
            data.to_str().unwrap(),
            "--out",
            "out",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let labels = std::fs::read_to_string(tmp.path().join("out/labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 80, "every task still labeled");
    let sql = crate::support::sql_csv(
        &data,
        &[],
        "SELECT call_id, array_to_string(field_reasons, '; ') AS reasons FROM call_fields WHERE call_id = 'c-hostile'",
    );
    assert!(
        sql.contains("too large to analyse: 80000 operators in one query"),
        "{sql}"
    );
}

#[test]
fn a_repeated_case_id_is_an_error_naming_both_lines() {
    // Seed 000: a case_id names one case. A repeat, in the same file or another, is a bad
    // line that names the first; with --on-bad-line skip it is rejected and counted, and
    // the first case stays.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("p");
    crate::support::copy_dir(&crate::support::demo(), &d);
    let cases = std::fs::read_to_string(d.join("cases.jsonl")).unwrap();
    let first = cases.lines().next().unwrap();
    let id = serde_json::from_str::<serde_json::Value>(first).unwrap()["case_id"]
        .as_str()
        .unwrap()
        .to_string();
    let n = cases.lines().count();
    std::fs::write(
        d.join("cases.jsonl"),
        format!(
            "{cases}{}\n",
            first.replace("\"question\": \"", "\"question\": \"Again: ")
        ),
    )
    .unwrap();
    let r = run(
        tmp.path(),
        &["sql", "--data", "p", "SELECT count(*) FROM cases"],
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    let want = format!(
        "p/cases.jsonl:{}: field `case_id`: '{id}' repeats {}:1 (it must be unique)",
        n + 1,
        d.join("cases.jsonl").display()
    );
    assert!(
        r.stderr.contains(&want),
        "wanted `{want}` in:\n{}",
        r.stderr
    );
    let r = run(
        tmp.path(),
        &[
            "ingest",
            "-q",
            "--data",
            "p",
            "--out",
            "out",
            "--on-bad-line",
            "skip",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("rejected 1 input line(s)"),
        "{}",
        r.stderr
    );
    let count = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "out",
            "--format",
            "csv",
            "SELECT count(*) AS n, min(question) AS q FROM cases",
        ],
    );
    assert!(count.starts_with(&format!("n,q\n{n},")), "{count}");
    assert!(!count.contains("Again:"), "{count}");
}

#[test]
fn a_symlink_out_of_the_project_is_named_in_rejects_not_copied() {
    // Issue #22: traces/ holding a symlink to a file outside the project copied that
    // file's lines into rejects.jsonl.
    let tmp = tempfile::tempdir().unwrap();
    project(tmp.path(), GOOD.as_bytes());
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\n").unwrap();
    std::os::unix::fs::symlink(&secret, tmp.path().join("p/traces/b.jsonl")).unwrap();
    let r = run(tmp.path(), INGEST_SKIPPING);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rejects = std::fs::read_to_string(tmp.path().join("out/rejects.jsonl")).unwrap();
    assert!(!rejects.contains("wJalrXUtnFEMI"), "{rejects}");
    let v: serde_json::Value = serde_json::from_str(rejects.lines().next().unwrap()).unwrap();
    let why = v["raw_withheld"].as_str().unwrap();
    assert!(
        why.contains("b.jsonl resolves to") && why.contains("secret.txt"),
        "{why}"
    );
    // A file inside the project keeps its raw line, as before.
    let inside = skipped_as(b"not json", &[]);
    assert_eq!(inside["raw"], "not json");
}

/// JSONL ingest on mutated real project files (issue #22's fuzz target for it): the
/// demo's cases, traces and catalog, their bytes mutated with a fixed seed, read under
/// `--on-bad-line skip`. The property: no panic, no error, and every line accounted for:
/// rows read + lines rejected = non-blank lines written.
#[test]
fn jsonl_ingest_never_panics_and_counts_every_line() {
    use groundcheck::Session;
    use groundcheck::input::jsonl::{OnBadLine, ReadOptions};
    let demo = crate::support::demo();
    let head = |file: &str, n: usize| -> Vec<u8> {
        let text = std::fs::read_to_string(demo.join(file)).unwrap();
        text.lines()
            .take(n)
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    };
    use groundcheck::model::{CASES, CATALOG, STEPS, TableSpec};
    let seeds: Vec<(&'static TableSpec, &str, Vec<u8>)> = vec![
        (&CASES, "cases.jsonl", head("cases.jsonl", 8)),
        (
            &STEPS,
            "t.jsonl",
            head("traces/run-demo-generic-warehouse.jsonl", 40),
        ),
        (&CATALOG, "catalog.jsonl", head("context/catalog.jsonl", 20)),
    ];
    let rounds: usize = std::env::var("GROUNDCHECK_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map(|r| r / 10)
        .unwrap_or(2000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(32 << 20)
        .enable_all()
        .build()
        .unwrap();
    let mut m = crate::support::Mutator::new(0x9E37_79B9_7F4A_7C15);
    const TOKENS: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"null",
        b"NaN",
        b"-1e999",
        b"\n",
        b"\r\n",
        b"\xef\xbb\xbf",
        b"\x00\xff",
        b"\"2026-13-45T99:00:00Z\"",
        b"1e400",
    ];
    for i in 0..rounds {
        let (table, file, seed) = &seeds[m.below(seeds.len())];
        let b = m.mutate(seed, TOKENS, 128, 400);
        let lines = b
            .split(|c| *c == b'\n')
            .enumerate()
            .filter(|(k, l)| {
                let text = String::from_utf8_lossy(l);
                let text = match k {
                    0 => text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(),
                    _ => text.to_string(),
                };
                !text.trim().is_empty()
            })
            .count() as u64;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(file);
        std::fs::write(&path, &b).unwrap();
        let read = ReadOptions {
            on_bad_line: OnBadLine::Skip,
            ..Default::default()
        };
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(async {
                let session =
                    Session::open_table_with(table, &path.to_string_lossy(), read).await?;
                let batches = session
                    .ctx
                    .sql(&format!("SELECT count(*) FROM {}", table.name))
                    .await?
                    .collect()
                    .await?;
                let rows = batches[0]
                    .column(0)
                    .as_any()
                    .downcast_ref::<arrow::array::Int64Array>()
                    .unwrap()
                    .value(0) as u64;
                Ok::<_, groundcheck::Error>((rows, session.rejects.len() as u64))
            })
        }));
        let got = got.unwrap_or_else(|_| panic!("round {i}: {file} mutated panicked the reader"));
        let (rows, rejected) = got.unwrap_or_else(|e| panic!("round {i}: {file} mutated: {e}"));
        assert_eq!(
            rows + rejected,
            lines,
            "round {i}: {file}: {rows} rows + {rejected} rejected != {lines} lines\n{}",
            String::from_utf8_lossy(&b)
        );
    }
}

/// tests/fixtures/bad-input: one file per kind of bad input (its make.py writes them,
/// expected.tsv says what must happen). Under `fail`: the exit code and the message naming
/// file and line; under `skip`: the rows read and the lines rejected, which together are
/// every line of the file.
#[test]
fn the_bad_input_corpus_gets_its_exact_answers() {
    let dir = crate::support::root().join("tests/fixtures/bad-input");
    let expected = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let [file, table, lines, exit, message, rows, rejected] = f[..] else {
            panic!("expected.tsv: {line}");
        };
        let path = dir.join(file);
        let table_arg = format!("{table}={}", path.display());
        let sql = format!("SELECT count(*) AS n FROM {table}");
        let base = [
            "sql", "--data", "empty", "--table", &table_arg, "--format", "csv",
        ];
        let mut args = base.to_vec();
        args.push(&sql);
        let r = run(tmp.path(), &args);
        assert_eq!(r.code.to_string(), exit, "{file}: {}", r.stderr);
        if message != "-" {
            let want = format!("{}:{message}", path.display());
            assert!(
                r.stderr.contains(&want),
                "{file}: want {want}\ngot {}",
                r.stderr
            );
        }
        let out = tmp.path().join(format!("out-{file}"));
        let mut args = base.to_vec();
        args.extend([
            "--on-bad-line",
            "skip",
            "--out",
            out.to_str().unwrap(),
            &sql,
        ]);
        let r = run(tmp.path(), &args);
        assert_eq!(r.code, 0, "{file} under skip: {}", r.stderr);
        assert_eq!(r.stdout, format!("n\n{rows}\n"), "{file}: rows read");
        let kept = std::fs::read_to_string(out.join("rejects.jsonl")).unwrap_or_default();
        assert_eq!(
            kept.lines().count().to_string(),
            rejected,
            "{file}: rejected"
        );
        let (rows, rejected, lines): (u64, u64, u64) = (
            rows.parse().unwrap(),
            rejected.parse().unwrap(),
            lines.parse().unwrap(),
        );
        assert_eq!(
            rows + rejected,
            lines,
            "{file}: rows in + rejected = lines in"
        );
        seen += 1;
    }
    assert_eq!(seen, 12);
}

/// `$ref` cycles (a linked list, and two definitions that point at each other) are
/// compared by following each reference once: the real changes inside are found, and the
/// diff ends.
#[test]
fn drift_over_ref_cycles_finds_the_changes_and_ends() {
    let dir = crate::support::root().join("tests/fixtures/bad-input");
    let tmp = tempfile::tempdir().unwrap();
    let r = run(
        tmp.path(),
        &[
            "drift",
            dir.join("ref-cycle-old.json").to_str().unwrap(),
            dir.join("ref-cycle-new.json").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    for rule in [
        "parameter 'node.v' became required",
        "parameter 'node.v' type changed from string to integer",
    ] {
        assert!(r.stdout.contains(rule), "{rule}\n{}", r.stdout);
    }
}

/// A cases.jsonl that is empty, blank or a folder holds no case: `label` and `report`
/// exit 2 saying so (every task would have gone unlabeled with exit 0), and write nothing.
#[test]
fn empty_blank_or_folder_cases_are_loud() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, make) in [
        ("empty", Some("")),
        ("blank", Some(" \n\n\t\n")),
        ("folder", None),
    ] {
        let proj = tmp.path().join(name);
        crate::support::copy_dir(&crate::support::demo(), &proj);
        let cases = proj.join("cases.jsonl");
        std::fs::remove_file(&cases).unwrap();
        match make {
            Some(text) => std::fs::write(&cases, text).unwrap(),
            None => std::fs::create_dir(&cases).unwrap(),
        }
        for verb in ["label", "report"] {
            let out = tmp.path().join(format!("out-{name}-{verb}"));
            let r = crate::support::run(
                tmp.path(),
                &[
                    verb,
                    "-q",
                    "--data",
                    proj.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ],
            );
            assert_eq!(r.code, 2, "{name} {verb}: {}", r.stderr);
            assert!(
                r.stderr.starts_with("error: no task to label: ")
                    && r.stderr.contains("cases")
                    && r.stderr.lines().count() == 1,
                "{name} {verb}: {}",
                r.stderr
            );
            assert!(!out.join("labels.jsonl").exists(), "{name} {verb}");
        }
    }
}

/// A `--data` that is not a folder is an error in one sentence, not a session of empty
/// tables (`sql` counted 0 cases and exited 0); with every table it reads given by
/// `--table`, a missing project only leaves the rest empty.
#[test]
fn a_missing_or_file_project_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-project");
    let file = tmp.path().join("cases.jsonl");
    std::fs::copy(crate::support::demo().join("cases.jsonl"), &file).unwrap();
    for (data, said) in [
        (&missing, "no such folder"),
        (&file, "a file, not a project folder"),
    ] {
        let r = run(
            tmp.path(),
            &[
                "sql",
                "--data",
                data.to_str().unwrap(),
                "SELECT count(*) FROM cases",
            ],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr
                .starts_with(&format!("error: cannot open {}: {said}", data.display()))
                && r.stderr.lines().count() == 1,
            "{}",
            r.stderr
        );
    }
    let r = run(
        tmp.path(),
        &[
            "sql",
            "--data",
            missing.to_str().unwrap(),
            "--table",
            &format!("cases={}", file.display()),
            "--format",
            "csv",
            "SELECT count(*) AS n FROM cases",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "n\n40\n");
}

/// A clean rerun into a folder that holds an earlier run's rejects.jsonl removes it.
#[test]
fn a_clean_rerun_removes_stale_rejects() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("rejects.jsonl"), "{\"stale\":true}\n").unwrap();
    let demo = crate::support::demo();
    ok(
        tmp.path(),
        &[
            "label",
            "-q",
            "--on-bad-line",
            "skip",
            "--data",
            demo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(out.join("labels.jsonl").exists());
    assert!(!out.join("rejects.jsonl").exists());
}
