//! `groundcheck canary` against a real MCP server (server-everything from npm): traces as
//! steps, the baseline, expectation failures, a behaviour change, and --every.

use crate::drift::everything;
use crate::support::{root, run, sql_csv};

fn canary(dir: &std::path::Path, canaries: &str, extra: &[&str]) -> crate::support::Run {
    let file = dir.join("canaries.jsonl");
    std::fs::write(&file, canaries).unwrap();
    let out = dir.join("out");
    let server = everything();
    let mut args = vec![
        "canary",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend(server.split(' '));
    run(&root(), &args)
}

#[test]
fn canaries_record_a_baseline_and_catch_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(root().join("tests/fixtures/canaries.jsonl")).unwrap();
    let r = canary(tmp.path(), &good, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .starts_with("PASS echo-hello\nPASS sum-2-3\nPASS structured\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("3 passed, 0 failed"), "{}", r.stdout);
    let baseline = tmp.path().join("out/canary/baseline.jsonl");
    let text = std::fs::read_to_string(&baseline).unwrap();
    assert!(
        text.contains(r#"{"name":"sum-2-3","result":"\"The sum of 2 and 3 is 5.\"","rows":1"#),
        "{text}"
    );

    // The calls are trace steps the steps table reads.
    let traces = tmp.path().join("out/canary/traces");
    let rows = sql_csv(
        tmp.path(),
        &[("steps", &traces)],
        "SELECT tool, kind, is_error, result FROM steps WHERE tool = 'get-sum' ORDER BY step",
    );
    assert_eq!(
        rows,
        "tool,kind,is_error,result\nget-sum,tool_call,,\nget-sum,tool_result,false,\"\"\"The sum of 2 and 3 is 5.\"\"\"\n"
    );

    // The tool behaves differently from the baseline: its structure changed.
    let edited: String = text
        .lines()
        .map(|l| {
            if l.contains("\"structured\"") {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                serde_json::json!({"name": "structured", "shape": "0123456789abcdef", "rows": 5, "result": v["result"]}).to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&baseline, edited + "\n").unwrap();
    let r = canary(tmp.path(), &good, &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("FAIL structured: result shape changed (0123456789abcdef -> "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("     structured: rows 5 -> 1"),
        "{}",
        r.stdout
    );

    // --update-baseline accepts the new behaviour.
    assert_eq!(canary(tmp.path(), &good, &["--update-baseline"]).code, 1);
    assert_eq!(canary(tmp.path(), &good, &[]).code, 0);
}

#[test]
fn failed_expectations_and_errors_exit_one() {
    let tmp = tempfile::tempdir().unwrap();
    let r = canary(
        tmp.path(),
        concat!(
            r#"{"name": "wrong-sum", "tool": "get-sum", "arguments": {"a": 2, "b": 3}, "expect": {"exact": "The sum of 2 and 3 is 6."}}"#,
            "\n",
            r#"{"name": "gone", "tool": "no-such-tool", "arguments": {}}"#,
            "\n",
            r#"{"name": "bad-args", "tool": "get-sum", "arguments": {"a": "two"}, "expect": {"error": true}}"#,
            "\n",
        ),
        &[],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("FAIL wrong-sum: result \"The sum of 2 and 3 is 5.\" is not the expected \"The sum of 2 and 3 is 6.\""), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("FAIL gone: the call returned a tool error"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("PASS bad-args"), "{}", r.stdout);
    assert!(r.stdout.contains("1 passed, 2 failed"), "{}", r.stdout);
}

#[test]
fn every_repeats_and_bad_files_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let one = r#"{"name": "echo", "tool": "echo", "arguments": {"message": "x"}}"#;
    let r = canary(tmp.path(), one, &["--every", "1s", "--runs", "2"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.matches("PASS echo").count(), 2, "{}", r.stdout);
    assert_eq!(
        std::fs::read_dir(tmp.path().join("out/canary/traces"))
            .unwrap()
            .count(),
        2
    );
    let r = canary(
        tmp.path(),
        "{\"name\": \"a\", \"tool\": \"echo\"}\n{\"name\": \"b\", \"tool\": \"echo\", \"expect\": {\"min_rows\": -1}}\n",
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("canaries.jsonl:2: field `expect.min_rows`: expected a whole number, got -1"),
        "{}",
        r.stderr
    );
}

#[test]
fn every_survives_an_unreachable_server_and_alerts() {
    // Issue #22: `--every` ended the watch (exit 2, a raw dump) the first time the server
    // was unreachable, and the exit code reflected only the last run. Now each failed
    // run is recorded and alerted, the watch goes on, and the exit is 1 if any failed.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("canaries.jsonl");
    std::fs::write(
        &file,
        r#"{"name": "echo", "tool": "echo", "arguments": {"message": "x"}}"#,
    )
    .unwrap();
    let alerts = tmp.path().join("alerts.txt");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let alert = format!(
        "echo \"$GROUNDCHECK_CANARY_RUN $GROUNDCHECK_CANARY_FAILED\" >> {}",
        alerts.display()
    );
    let r = run(
        &root(),
        &[
            "canary",
            file.to_str().unwrap(),
            &format!("http://127.0.0.1:{port}/mcp"),
            "--out",
            tmp.path().join("out").to_str().unwrap(),
            "--every",
            "1s",
            "--runs",
            "3",
            "--timeout",
            "5",
            "--alert",
            &alert,
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.matches("could not be checked").count(),
        3,
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("3 run(s), 3 failed"), "{}", r.stdout);
    assert!(!r.stdout.contains("rmcp::"), "{}", r.stdout);
    assert_eq!(
        std::fs::read_to_string(&alerts).unwrap(),
        "1 unreachable\n2 unreachable\n3 unreachable\n"
    );
    // Runs that all pass: exit 0.
    let ok_then = run(
        &root(),
        &[
            &[
                "canary",
                file.to_str().unwrap(),
                "--out",
                tmp.path().join("o2").to_str().unwrap(),
                "--every",
                "1s",
                "--runs",
                "2",
            ][..],
            &["--"][..],
            &everything().split(' ').collect::<Vec<_>>()[..],
        ]
        .concat(),
    );
    assert_eq!(ok_then.code, 0, "{}", ok_then.stderr);
}

#[test]
fn anomalies_flag_a_whole_outage_and_alert_once() {
    // tests/fixtures/anomaly-windows: a three-hour error burst and a day-long outage of
    // empty results in a week of one tool's calls (its make.py).
    let tmp = tempfile::tempdir().unwrap();
    let data = root().join("tests/fixtures/anomaly-windows");
    let alert = tmp.path().join("alert.txt");
    let r = run(
        tmp.path(),
        &[
            "anomalies",
            "--data",
            data.to_str().unwrap(),
            "--out",
            "out",
            "--alert",
            &format!(
                "echo \"$GROUNDCHECK_ANOMALIES|$GROUNDCHECK_ANOMALIES_MESSAGE\" >> {}",
                alert.display()
            ),
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let flagged: Vec<&str> = r.stdout.lines().skip(1).collect();
    assert_eq!(flagged.len(), 27, "{}", r.stdout);
    assert_eq!(flagged.iter().filter(|l| l.ends_with("errors")).count(), 3);
    assert!(
        flagged
            .iter()
            .filter(|l| l.ends_with("empty"))
            .all(|l| l.contains("2026-07-06T")),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read_to_string(&alert).unwrap(),
        "27|27 of 156 hour window(s) of 1 tool(s) flagged (jump 0.5, min calls 3, baseline of 3 healthy windows)\n"
    );
    // By day, with the thresholds as flags: only the outage's day.
    let r = run(
        tmp.path(),
        &[
            "anomalies",
            "--data",
            data.to_str().unwrap(),
            "--out",
            "out",
            "--window",
            "day",
            "--json",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let rows: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["window_start"], "2026-07-06T00:00:00Z");
    assert_eq!(rows[0]["empty"], 144);
    // Healthy traffic exits 0; no traces at all is an error, not a clean bill.
    let r = run(
        tmp.path(),
        &[
            "anomalies",
            "--data",
            root().join("datasets/demo").to_str().unwrap(),
            "--out",
            "out",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let r = run(
        tmp.path(),
        &["anomalies", "--data", "empty", "--out", "out"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no tool result with a time"),
        "{}",
        r.stderr
    );
}
