//! `label` and `report` on the demo project: golden files compared exactly, repeatable
//! bytes, `report diff`, and the Parquet outputs read as a notebook would (pyarrow, DuckDB).
//!
//! Regenerate the golden files after an intended change with
//! `UPDATE_GOLDEN=1 cargo test --test it scoring`, then review the diff.

use std::process::Command;

use crate::support::{demo, ok, root, run, tree};

fn golden(name: &str, got: &str) {
    let path = root().join("tests/golden/demo").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert!(
        want == got,
        "{name} differs from tests/golden/demo/{name}; if intended, UPDATE_GOLDEN=1 and review.\n--- got ---\n{got}"
    );
}

/// Issue #49: the labels query stays readable. Its physical plan over the demo (two
/// partitions; metrics dropped) is a golden file, and docs/outputs.md gives its operator
/// count and kinds: a plan that grows shows in review, not only in a profile.
#[test]
fn the_labels_plan_is_the_documented_one() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let mut c = crate::support::cmd(tmp.path());
    c.env("GROUNDCHECK_PROFILE", "1").args([
        "label",
        "--data",
        d.to_str().unwrap(),
        "--out",
        "out",
        "-q",
        "--partitions",
        "2",
    ]);
    let r = crate::support::finish(c, crate::support::RUN_LIMIT);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let metrics = regex::Regex::new(r", metrics=\[[^\]]*\]").unwrap();
    let plan: Vec<String> = r
        .stderr
        .lines()
        .skip_while(|l| !l.starts_with("profile: labels query"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| metrics.replace_all(l, "").into_owned())
        .collect();
    assert!(!plan.is_empty(), "no plan on stderr:\n{}", r.stderr);
    golden("labels_plan.txt", &(plan.join("\n") + "\n"));
    // The count docs/outputs.md states.
    let docs = std::fs::read_to_string(root().join("docs/outputs.md")).unwrap();
    let stated = format!("{} operators", plan.len());
    assert!(
        docs.contains(&stated),
        "docs/outputs.md should say the labels plan has {stated}"
    );
}

#[test]
fn demo_report_matches_the_golden_files() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let printed = ok(
        tmp.path(),
        &["report", "--data", d.to_str().unwrap(), "--out", "out"],
    );
    golden("report.txt", &printed);
    let out = tmp.path().join("out");
    golden(
        "report.json",
        &std::fs::read_to_string(out.join("report.json")).unwrap(),
    );
    golden(
        "labels.jsonl",
        &std::fs::read_to_string(out.join("labels.jsonl")).unwrap(),
    );
    // report.json has exactly the seed's fields, in its order.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let fields: Vec<&String> = report[0].as_object().unwrap().keys().collect();
    assert_eq!(fields.len(), groundcheck::eval::report::REPORT_FIELDS.len());
}

#[test]
fn label_and_report_are_byte_for_byte_repeatable() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    for out in ["a", "b"] {
        ok(
            tmp.path(),
            &["report", "--data", d.to_str().unwrap(), "--out", out],
        );
    }
    ok(
        tmp.path(),
        &["label", "--data", d.to_str().unwrap(), "--out", "c"],
    );
    let (a, b) = (tree(&tmp.path().join("a")), tree(&tmp.path().join("b")));
    assert!(a == b, "two report runs wrote different bytes");
    let c = tree(&tmp.path().join("c"));
    let labels = |t: &[(String, Vec<u8>)]| {
        t.iter()
            .find(|(p, _)| p == "labels.parquet")
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(
        labels(&a),
        labels(&c),
        "label and report wrote different labels.parquet"
    );
}

#[test]
fn report_diff_shows_deltas_and_flips() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let data = d.to_str().unwrap();
    let out = ok(
        tmp.path(),
        &[
            "report",
            "--data",
            data,
            "diff",
            "generic-warehouse",
            "task-specific",
        ],
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("correct_and_grounded"))
        .unwrap();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["correct_and_grounded", "25", "36", "+11"]
    );
    assert!(
        out.contains("  emea-active-q2-017: ungrounded -> grounded"),
        "{out}"
    );
    assert!(
        out.contains("  acme-open-tickets-003: correct -> wrong"),
        "{out}"
    );
    assert!(
        out.contains("  acme-open-tickets-003: new failure class entity (was -)"),
        "{out}"
    );
    // The other way round regresses, and --fail-on-regression makes that exit 1.
    let r = run(
        tmp.path(),
        &[
            "report",
            "--data",
            data,
            "diff",
            "task-specific",
            "generic-warehouse",
            "--fail-on-regression",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("  emea-active-q2-017: grounded -> ungrounded")
    );
    // Two saved runs: the same labels, nothing flips.
    ok(tmp.path(), &["label", "--data", data, "--out", "before"]);
    ok(tmp.path(), &["label", "--data", data, "--out", "after"]);
    let r = run(
        tmp.path(),
        &["report", "diff", "before", "after", "--fail-on-regression"],
    );
    assert_eq!(
        r.code, 2,
        "before/after each hold two servers: {}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("before holds 2 servers and 1 runs; name one"),
        "{}",
        r.stderr
    );
    let same = ok(
        tmp.path(),
        &[
            "report",
            "diff",
            "before::task-specific",
            "after::task-specific@demo-2026-07-02",
            "--fail-on-regression",
        ],
    );
    assert!(same.contains("no case flipped"), "{same}");
    let same = ok(
        tmp.path(),
        &[
            "report",
            "--data",
            data,
            "diff",
            "generic-warehouse@demo-2026-07-02",
            "generic-warehouse",
        ],
    );
    assert!(same.contains("no case flipped"), "{same}");
    let r = run(
        tmp.path(),
        &["report", "--data", data, "diff", "nope", "task-specific"],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope: no such server or run (servers: generic-warehouse, task-specific; runs: demo-2026-07-02)"), "{}", r.stderr);
}

fn python_has(modules: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_notebook_reads_labels_and_report_parquet() {
    if !python_has("pyarrow, duckdb") {
        assert!(
            std::env::var_os("CI").is_none(),
            "pyarrow/duckdb missing; scripts/setup.sh installs them"
        );
        eprintln!(
            "\n*** SKIPPING NOTEBOOK TEST: pyarrow or duckdb not installed; run scripts/setup.sh ***\n"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    ok(
        tmp.path(),
        &["report", "--data", demo().to_str().unwrap(), "--out", "out"],
    );
    let script = r#"
import pyarrow.parquet as pq, duckdb, json
labels = pq.read_table("out/labels.parquet")
assert labels.num_rows == 80, labels.num_rows
assert {"run_id", "server", "case_id", "correct", "grounded", "failure_class", "needs_human_review"} <= set(labels.column_names)
report = pq.read_table("out/report.parquet").to_pylist()
print(json.dumps([[r["server"], r["correct_and_grounded"], r["failures_by_class"]["semantic"]] for r in report]))
rows = duckdb.sql("SELECT server, count(*) FILTER (WHERE correct AND grounded) FROM 'out/labels.parquet' GROUP BY server ORDER BY server").fetchall()
print(json.dumps(rows))
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "[[\"generic-warehouse\", 25, 5], [\"task-specific\", 36, 0]]\n[[\"generic-warehouse\", 25], [\"task-specific\", 36]]\n"
    );
}

#[test]
fn every_output_column_is_documented() {
    let doc = std::fs::read_to_string(root().join("docs/outputs.md")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    ok(
        tmp.path(),
        &["report", "--data", demo().to_str().unwrap(), "--out", "out"],
    );
    for (file, table) in [("labels.parquet", "labels"), ("report.parquet", "report")] {
        let path = tmp.path().join("out").join(file);
        let sql = format!(
            "CREATE EXTERNAL TABLE o STORED AS PARQUET LOCATION '{}'; SELECT column_name FROM information_schema.columns WHERE table_name = 'o'",
            path.display()
        );
        let cols = ok(
            tmp.path(),
            &[
                "sql",
                "--allow-files",
                "--data",
                demo().to_str().unwrap(),
                "--format",
                "csv",
                &sql,
            ],
        );
        for c in cols.lines().skip(1) {
            assert!(
                doc.contains(&format!("| `{c}` |")),
                "{table}.{c} is not in docs/outputs.md"
            );
        }
    }
}

#[test]
fn review_export_and_import_close_the_loop() {
    let tmp = tempfile::tempdir().unwrap();
    crate::support::copy_dir(&demo(), &tmp.path().join("p"));
    let out = ok(
        tmp.path(),
        &["review", "export", "--data", "p", "--out", "out"],
    );
    assert!(out.starts_with("11 task(s) need review"), "{out}");
    let text = std::fs::read_to_string(tmp.path().join("out/review.jsonl")).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 11);
    for l in &lines {
        assert!(!l["review_reasons"].as_array().unwrap().is_empty());
        assert!(
            !l["trace"].as_array().unwrap().is_empty() || l["case_id"] == "big-orders-units-009"
        );
        assert!(l["decision"]["reviewer"].is_null());
    }
    // A reviewer decides two tasks: the refusal was a wrong answer with no failure class.
    for l in lines.iter_mut() {
        let (case, server) = (
            l["case_id"].as_str().unwrap().to_string(),
            l["server"].as_str().unwrap().to_string(),
        );
        if case == "amer-active-refusal-033" && server == "generic-warehouse" {
            l["decision"] = serde_json::json!({"correct": false, "grounded": false, "failure_class": "none", "reviewer": "ana", "decided_at": "2026-07-03T09:00:00Z"});
        }
        if case == "pipeline-sam-028" && server == "task-specific" {
            l["decision"] = serde_json::json!({"grounded": true, "reviewer": "ana", "decided_at": "2026-07-03T09:00:00Z"});
        }
    }
    let filled: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(tmp.path().join("filled.jsonl"), filled).unwrap();
    let out = ok(
        tmp.path(),
        &["review", "import", "filled.jsonl", "--data", "p"],
    );
    assert!(
        out.starts_with("imported 2 decision(s)")
            && out.contains("(9 line(s) without a decision skipped)"),
        "{out}"
    );
    let report = ok(tmp.path(), &["report", "--data", "p", "--out", "out2"]);
    assert!(
        report.contains("human review decisions: 2 task(s), 1 changed the automatic label"),
        "{report}"
    );
    let line = report
        .lines()
        .find(|l| l.starts_with("needs_human_review"))
        .unwrap();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["needs_human_review", "6", "3"]
    );
    let row = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "p",
            "--format",
            "csv",
            "SELECT correct, failure_class, auto_failure_class, reviewed_by FROM labels WHERE case_id = 'amer-active-refusal-033' AND server = 'generic-warehouse'",
        ],
    );
    assert_eq!(
        row,
        "correct,failure_class,auto_failure_class,reviewed_by\nfalse,,,ana\n"
    );
    // A decision that is not one of the classes is refused with its line and field.
    std::fs::write(
        tmp.path().join("bad.jsonl"),
        "{\"run_id\":\"r\",\"server\":\"s\",\"case_id\":\"c\",\"decision\":{\"failure_class\":\"cosmic\",\"reviewer\":\"ana\"}}\n",
    )
    .unwrap();
    let r = run(
        tmp.path(),
        &["review", "import", "bad.jsonl", "--data", "p"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("bad.jsonl:1: field `decision.failure_class`: expected entity, semantic"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_external_policy_oracle_adds_its_findings_and_failures_go_to_review() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let data = d.to_str().unwrap();
    let oracle = format!(
        "python3 {}",
        root().join("tests/fixtures/policy_oracle.py").display()
    );
    let policy = "SELECT case_id, server, call_id, array_to_string(violations, '; ') AS v FROM call_policy WHERE cardinality(violations) > 0 ORDER BY 1, 2, 3";
    // No oracle: the built-in check alone.
    let builtin = ok(
        tmp.path(),
        &["sql", "--data", data, "--format", "csv", policy],
    );
    assert_eq!(builtin.lines().count(), 3, "{builtin}");
    // With the oracle, the label run sees its findings too: the email column on 013.
    let out = crate::support::cmd(tmp.path())
        .args([
            "label",
            "--data",
            data,
            "--out",
            "o",
            "--policy-oracle",
            &oracle,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("policy oracle checked 84 call(s)"));
    let labels = std::fs::read_to_string(tmp.path().join("o/labels.jsonl")).unwrap();
    let email = labels
        .lines()
        .find(|l| {
            l.contains("\"case_id\":\"acme-contact-email-013\"") && l.contains("generic-warehouse")
        })
        .unwrap();
    assert!(
        email.contains("column email not allowed by the policy oracle"),
        "{email}"
    );
    assert!(email.contains("column email returned unmasked"), "{email}");
    // An oracle that dies part way: the calls it did not answer go to review, none allowed.
    let out = crate::support::cmd(tmp.path())
        .args([
            "label",
            "--data",
            data,
            "--out",
            "x",
            "--policy-oracle",
            &oracle,
        ])
        .env("ORACLE_MODE", "exit-after-5")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("policy oracle exited before answering (call demo-2026-07-02/"),
        "{stderr}"
    );
    let review = std::fs::read_to_string(tmp.path().join("x/labels.jsonl")).unwrap();
    let unsure = review
        .lines()
        .filter(|l| {
            l.contains("needs_human_review\":true")
                && l.contains("policy oracle exited before answering")
        })
        .count();
    assert!(unsure > 70, "{unsure}");
    // One that hangs: the timeout ends it; one that answers garbage: named per call.
    let out = crate::support::cmd(tmp.path())
        .args([
            "label",
            "--data",
            data,
            "--out",
            "h",
            "--policy-oracle",
            &oracle,
            "--policy-oracle-timeout",
            "0.5",
        ])
        .env("ORACLE_MODE", "hang")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("policy oracle did not answer within 0.5s")
    );
    let out = crate::support::cmd(tmp.path())
        .args([
            "label",
            "--data",
            data,
            "--out",
            "g",
            "--policy-oracle",
            &oracle,
        ])
        .env("ORACLE_MODE", "garbage")
        .output()
        .unwrap();
    assert!(out.status.success());
    let g = std::fs::read_to_string(tmp.path().join("g/labels.jsonl")).unwrap();
    assert!(
        g.contains(
            "policy oracle answered a line that is not a JSON object: not json (call demo-2026-07-02/"
        ),
        "{g}"
    );
}

#[test]
fn replay_shows_which_recorded_calls_a_candidate_schema_breaks() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let candidate = root().join("tests/fixtures/candidates/run_sql_renamed.jsonl");
    let args = [
        "replay",
        "--data",
        d.to_str().unwrap(),
        "--candidate",
        candidate.to_str().unwrap(),
    ];
    let out = ok(tmp.path(), &args);
    assert_eq!(
        out,
        "41 of 41 recorded calls to run_sql (generic-warehouse) would fail: 41 x Schema mismatch: missing required parameter 'query'; 41 x Schema mismatch: unknown parameter 'sql'\n\
         1 of 12 recorded calls to active_customer_count (task-specific) would fail: 1 x Schema mismatch: parameter 'region': \"Europe\" is not one of \"EMEA\", \"AMER\" or \"APAC\"\n"
    );
    let mut strict = args.to_vec();
    strict.push("--fail-on-break");
    assert_eq!(run(tmp.path(), &strict).code, 1);
    // The schemas in force today accept every call but the three that broke them already.
    let today = d.join("snapshots/2026-07-01.jsonl");
    let out = ok(
        tmp.path(),
        &[
            "replay",
            "--data",
            d.to_str().unwrap(),
            "--candidate",
            today.to_str().unwrap(),
        ],
    );
    assert!(
        out.contains("all 41 recorded calls to run_sql (generic-warehouse) pass"),
        "{out}"
    );
    assert!(
        out.contains("2 of 3 recorded calls to open_tickets (task-specific) would fail"),
        "{out}"
    );
    // Every snapshot form groundcheck writes or reads is a candidate: what `snapshot`
    // writes by default (Parquet) and a tools/list file, with the same verdict.
    let tools_list = root().join("tests/fixtures/drift/warehouse-candidate.json");
    ok(
        tmp.path(),
        &["snapshot", tools_list.to_str().unwrap(), "--out", "snap"],
    );
    let run_sql = "41 of 41 recorded calls to run_sql (generic-warehouse) would fail: 41 x Schema mismatch: missing required parameter 'query'; 41 x Schema mismatch: unknown parameter 'sql'\n";
    for candidate in [
        tmp.path().join("snap/snapshots").display().to_string(),
        tools_list.display().to_string(),
    ] {
        let out = ok(
            tmp.path(),
            &[
                "replay",
                "--data",
                d.to_str().unwrap(),
                "--candidate",
                &candidate,
            ],
        );
        assert!(out.ends_with(run_sql), "{candidate}: {out}");
    }
    // A tools/list without a server name cannot match recorded calls: said, exit 2; so
    // is a server the recorded calls never went to.
    let anonymous = tmp.path().join("anonymous.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tools_list).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("serverInfo");
    std::fs::write(&anonymous, v.to_string()).unwrap();
    let r = run(
        tmp.path(),
        &[
            "replay",
            "--data",
            d.to_str().unwrap(),
            "--candidate",
            anonymous.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("names no server"), "{}", r.stderr);
    let r = run(
        tmp.path(),
        &[
            "replay",
            "--data",
            d.to_str().unwrap(),
            "--candidate",
            anonymous.to_str().unwrap(),
            "--server",
            "nobody",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no recorded call in") && r.stderr.contains("generic-warehouse"),
        "{}",
        r.stderr
    );
    let r = run(
        tmp.path(),
        &[
            "drift",
            anonymous.to_str().unwrap(),
            anonymous.to_str().unwrap(),
            "--replay",
            d.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn the_same_project_as_parquet_gives_the_same_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    ok(
        tmp.path(),
        &["ingest", "-q", "--data", d.to_str().unwrap(), "--out", "pq"],
    );
    ok(
        tmp.path(),
        &["report", "--data", "pq", "--out", "from-parquet"],
    );
    ok(
        tmp.path(),
        &[
            "report",
            "--data",
            d.to_str().unwrap(),
            "--out",
            "from-jsonl",
        ],
    );
    for f in ["labels.jsonl", "report.json"] {
        let a = std::fs::read_to_string(tmp.path().join("from-parquet").join(f)).unwrap();
        let b = std::fs::read_to_string(tmp.path().join("from-jsonl").join(f)).unwrap();
        assert!(
            a == b,
            "{f} differs between the JSONL project and its Parquet copy"
        );
    }
}

/// Labels in chunks of cases are the bytes of one pass: on the demo (JSON lines, with the
/// policy oracle run per chunk) and on a generated project read from Parquet.
#[test]
fn labels_in_chunks_are_the_bytes_of_one_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let d = demo();
    let oracle = format!(
        "python3 {}",
        root().join("tests/fixtures/policy_oracle.py").display()
    );
    ok(
        t,
        &[
            "gen", "--tasks", "300", "--seed", "5", "--out", "gen", "--quiet",
        ],
    );
    ok(t, &["ingest", "-q", "--data", "gen", "--out", "pq"]);
    let files = [
        "labels.jsonl",
        "labels.parquet",
        "report.json",
        "report.parquet",
    ];
    for (data, chunk, extra) in [
        (
            d.to_str().unwrap(),
            "100",
            vec!["--policy-oracle", oracle.as_str()],
        ),
        ("pq", "600", vec![]),
    ] {
        let report = |out: &str, steps: &str| {
            let mut args = vec![
                "report",
                "--data",
                data,
                "--out",
                out,
                "--chunk-steps",
                steps,
            ];
            args.extend(extra.iter().copied());
            crate::support::run(t, &args)
        };
        let whole = report("whole", "0");
        let chunked = report("chunked", chunk);
        assert_eq!(whole.code, 0, "{}", whole.stderr);
        assert_eq!(chunked.code, 0, "{}", chunked.stderr);
        assert!(
            !whole.stderr.contains("chunks of about"),
            "{}",
            whole.stderr
        );
        assert!(
            chunked.stderr.contains("chunks of about"),
            "{}",
            chunked.stderr
        );
        assert_eq!(whole.stdout, chunked.stdout);
        for f in files {
            let a = std::fs::read(t.join("whole").join(f)).unwrap();
            let b = std::fs::read(t.join("chunked").join(f)).unwrap();
            assert!(a == b, "{data}: {f} differs when labeled in chunks");
        }
        // Nothing is left behind but the outputs.
        let left: Vec<_> = std::fs::read_dir(t.join("chunked"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    // The oracle checked every call once across the chunks.
    let label = |out: &str, steps: &str| {
        let r = crate::support::run(
            t,
            &[
                "label",
                "--data",
                d.to_str().unwrap(),
                "--out",
                out,
                "--chunk-steps",
                steps,
                "--policy-oracle",
                &oracle,
            ],
        );
        assert!(
            r.stderr.contains("policy oracle checked 84 call(s)"),
            "{}",
            r.stderr
        );
        r.stdout
    };
    assert_eq!(label("o1", "0"), label("o2", "100"));
}

#[test]
fn catalog_names_with_blanks_stay_whole_from_catalog_to_fields() {
    use crate::support::sql_csv;
    // BIRD's california_schools: column names with blanks and parentheses. The shipped
    // catalog_entries view quotes them; sql_fields then reads a correct query's columns
    // whole (recall kept) and names an unknown qualified column.
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog.jsonl");
    std::fs::write(
        &cat,
        [
            r#"{"table_name": "frpm", "column_name": "Free Meal Count (K-12)", "data_type": "REAL"}"#,
            r#"{"table_name": "frpm", "column_name": "Enrollment (K-12)", "data_type": "REAL"}"#,
            r#"{"table_name": "frpm", "column_name": "County Name", "data_type": "TEXT"}"#,
            r#"{"table_name": "frpm", "column_name": "CDSCode", "data_type": "TEXT", "is_primary_key": true}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let entries = sql_csv(
        &demo(),
        &[("catalog", &cat)],
        "SELECT array_to_string(entries, ' | ') AS e FROM catalog_entries",
    );
    assert_eq!(
        entries,
        "e\n\"frpm.\"\"County Name\"\" | frpm.\"\"Enrollment (K-12)\"\" | frpm.\"\"Free Meal Count (K-12)\"\" | frpm.CDSCode pk\"\n"
    );
    let fields = sql_csv(
        &demo(),
        &[("catalog", &cat)],
        "SELECT array_to_string(f['fields'], ' | ') AS fields, array_to_string(f['reasons'], ' | ') AS reasons FROM (SELECT sql_fields('SELECT T1.`Free Meal Count (K-12)` / T1.`Enrollment (K-12)` FROM frpm AS T1 WHERE T1.`County Name` = ''Alameda'' AND T1.County = \"x\"', 'sqlite', (SELECT entries FROM catalog_entries)) AS f)",
    );
    assert_eq!(
        fields,
        "fields,reasons\nfrpm.County Name | frpm.Enrollment (K-12) | frpm.Free Meal Count (K-12),unknown column T1.County\n"
    );
}

#[test]
fn a_tool_without_lineage_is_warned_about_per_server() {
    // tests/fixtures/scoring-truth: server e's lookup tool has no tool_context row and a
    // definition that names no column; c and d are inferred from theirs.
    let tmp = tempfile::tempdir().unwrap();
    let data = root().join("tests/fixtures/scoring-truth");
    for verb in ["label", "report"] {
        let r = run(
            tmp.path(),
            &[verb, "--data", data.to_str().unwrap(), "--out", "out"],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let warnings: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("warning:"))
            .collect();
        assert_eq!(
            warnings,
            [
                "warning: e: no lineage for lookup: its calls count as reading their arguments \
              (tool.argument), never catalog columns; give it a tool_context row \
              (docs/tables.md) (1 task(s) scored ungrounded for it)"
            ],
            "{verb}: {}",
            r.stderr
        );
    }
}

#[test]
fn the_readme_shows_the_demo_report_as_it_is() {
    // Every metric line the README quotes is a line of the golden report (same bytes).
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let report = std::fs::read_to_string(root().join("tests/golden/demo/report.txt")).unwrap();
    let quoted: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("metric "))
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(quoted.len() >= 6, "the README quotes the demo report");
    for l in quoted {
        assert!(
            report.lines().any(|r| r == l),
            "README line not in the report: {l}"
        );
    }
}

#[test]
fn the_readme_counts_the_drift_rules_there_are() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let rules = std::fs::read_to_string(root().join("docs/drift-rules.md")).unwrap();
    let rows = rules.lines().filter(|l| l.starts_with("| `")).count();
    assert!(
        readme.contains(&format!("[{rows} rules](docs/drift-rules.md)")),
        "README.md should say [{rows} rules](docs/drift-rules.md)"
    );
}

/// Cases that vanish from side B are regressions: `--fail-on-regression` exits 1 and
/// names them (it printed "no case flipped" and exited 0 when B lost 44 of 118 cases).
#[test]
fn report_diff_counts_cases_that_vanished() {
    let tmp = tempfile::tempdir().unwrap();
    let fewer = tmp.path().join("fewer");
    crate::support::copy_dir(&demo(), &fewer);
    let cases = std::fs::read_to_string(fewer.join("cases.jsonl")).unwrap();
    let lines: Vec<&str> = cases.lines().collect();
    let gone: Vec<String> = lines[..3]
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["case_id"].as_str().unwrap().to_string()
        })
        .collect();
    std::fs::write(fewer.join("cases.jsonl"), lines[3..].join("\n") + "\n").unwrap();
    let demo = demo();
    ok(
        tmp.path(),
        &[
            "label",
            "-q",
            "--data",
            demo.to_str().unwrap(),
            "--out",
            "a",
        ],
    );
    ok(
        tmp.path(),
        &[
            "label",
            "-q",
            "--data",
            fewer.to_str().unwrap(),
            "--out",
            "b",
        ],
    );
    let r = run(
        tmp.path(),
        &[
            "report",
            "diff",
            "a::task-specific",
            "b::task-specific",
            "--fail-on-regression",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    // Their steps are still in B's traces: a case B lacks is "missing in B" when no
    // task of it is labeled, or an undecided one when its steps are (both regressions).
    for id in &gone {
        assert!(
            r.stdout.contains(&format!("  {id}: missing in B"))
                || r.stdout.contains(&format!("  {id}: correct -> undecided")),
            "{id}: {}",
            r.stdout
        );
    }
    // The same diff twice prints the same lines.
    let again = run(
        tmp.path(),
        &["report", "diff", "a::task-specific", "b::task-specific"],
    );
    let first = run(
        tmp.path(),
        &["report", "diff", "a::task-specific", "b::task-specific"],
    );
    assert_eq!(again.stdout, first.stdout);
    // The other way round: cases only B... here only A has them, listed, not regressions.
    let r = run(
        tmp.path(),
        &[
            "report",
            "diff",
            "b::task-specific",
            "a::task-specific",
            "--fail-on-regression",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!("  {}: ", gone[0])),
        "{}",
        r.stdout
    );
}
