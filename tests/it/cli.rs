//! The CLI on the demo project: ingest round trip, determinism, output formats, docs.

use std::io::Read;
use std::process::Stdio;

use crate::support::{cmd, demo, ok, root, run, tree};

const QUERY: &str = "SELECT case_id, gold.answer, gold.\"window\".\"start\" AS ws, label.failure_class, cost.usd FROM cases WHERE case_id IN ('emea-active-q2-017', 'acme-open-tickets-003', 'deals-closing-month-041') ORDER BY case_id";
const STEPS_QUERY: &str = "SELECT run_id, server, step, kind, tool, arguments, as_of, input_tokens FROM steps ORDER BY server, trace_id, step";

#[test]
fn ingest_then_query_parquet_gives_the_jsonl_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let d = demo();
    let printed = ok(
        tmp.path(),
        &["ingest", "--data", d.to_str().unwrap(), "--out", "out"],
    );
    assert!(
        printed.contains("cases                    40 rows from    1 file(s)"),
        "{printed}"
    );
    assert!(
        printed.contains("steps                   342 rows from    2 file(s)"),
        "{printed}"
    );
    for f in [
        "cases.parquet",
        "traces.parquet",
        "context/catalog.parquet",
        "snapshots.parquet",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    for q in [QUERY, STEPS_QUERY] {
        let from_jsonl = ok(
            tmp.path(),
            &["sql", "--data", d.to_str().unwrap(), "--format", "csv", q],
        );
        let from_parquet = ok(tmp.path(), &["sql", "--data", "out", "--format", "csv", q]);
        assert_eq!(from_jsonl, from_parquet);
    }
    let csv = ok(
        tmp.path(),
        &["sql", "--data", "out", "--format", "csv", QUERY],
    );
    assert_eq!(
        csv,
        "case_id,cases.gold[answer],ws,cases.label[failure_class],cases.cost[usd]\n\
         acme-open-tickets-003,7,,entity,0.0464\n\
         deals-closing-month-041,\"[\"\"D-1007\"\",\"\"D-1012\"\"]\",2026-07-01,policy,0.0266\n\
         emea-active-q2-017,1284,2026-04-01,semantic,0.0912\n"
    );
}

#[test]
fn ingest_is_byte_for_byte_repeatable() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    for out in ["a", "b"] {
        ok(
            tmp.path(),
            &["ingest", "-q", "--data", d.to_str().unwrap(), "--out", out],
        );
    }
    // And again into an existing output, which must be replaced, not appended to.
    ok(
        tmp.path(),
        &["ingest", "-q", "--data", d.to_str().unwrap(), "--out", "b"],
    );
    let a = tree(&tmp.path().join("a"));
    let b = tree(&tmp.path().join("b"));
    assert_eq!(
        a.iter().map(|x| &x.0).collect::<Vec<_>>(),
        b.iter().map(|x| &x.0).collect::<Vec<_>>()
    );
    assert!(a == b, "outputs differ");
    assert!(
        !a.iter().any(|(p, _)| p.contains(".tmp-")),
        "temporary file left behind"
    );
}

#[test]
fn ingest_partitions_by_run_id_and_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    // First unpartitioned, then partitioned into the same folder: the old layout must go.
    ok(
        tmp.path(),
        &[
            "ingest",
            "-q",
            "--data",
            d.to_str().unwrap(),
            "--out",
            "out",
        ],
    );
    ok(
        tmp.path(),
        &[
            "ingest",
            "-q",
            "--data",
            d.to_str().unwrap(),
            "--out",
            "out",
            "--partition-by",
            "run_id",
        ],
    );
    let out = tmp.path().join("out");
    assert!(
        out.join("traces/run_id=demo-2026-07-02/part-0.parquet")
            .is_file()
    );
    assert!(!out.join("traces.parquet").exists());
    // Tables without the column are written whole.
    assert!(out.join("cases.parquet").is_file());
    let a = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "csv",
            STEPS_QUERY,
        ],
    );
    let b = ok(
        tmp.path(),
        &["sql", "--data", "out", "--format", "csv", STEPS_QUERY],
    );
    assert_eq!(a, b);
    let r = run(
        tmp.path(),
        &[
            "ingest",
            "--data",
            d.to_str().unwrap(),
            "--out",
            "x",
            "--partition-by",
            "nope",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--partition-by nope: no table has that column"),
        "{}",
        r.stderr
    );
}

#[test]
fn ingest_refuses_to_write_into_its_input() {
    let tmp = tempfile::tempdir().unwrap();
    crate::support::copy_dir(&demo(), &tmp.path().join("p"));
    let r = run(tmp.path(), &["ingest", "--data", "p", "--out", "p"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is the input folder"), "{}", r.stderr);
}

#[test]
fn sql_output_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let q =
        "SELECT term, tools FROM glossary WHERE term IN ('MRR', 'active customer') ORDER BY term";
    let json = ok(
        tmp.path(),
        &["sql", "--data", d.to_str().unwrap(), "--format", "json", q],
    );
    assert_eq!(
        json,
        "{\"term\":\"MRR\",\"tools\":[\"mrr_total\"]}\n{\"term\":\"active customer\",\"tools\":[\"active_customer_count\"]}\n"
    );
    // CSV cannot hold a list: it becomes JSON text.
    let csv = ok(
        tmp.path(),
        &["sql", "--data", d.to_str().unwrap(), "--format", "csv", q],
    );
    assert_eq!(
        csv,
        "term,tools\nMRR,\"[\"\"mrr_total\"\"]\"\nactive customer,\"[\"\"active_customer_count\"\"]\"\n"
    );
    let table = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "SELECT count(*) AS n FROM catalog",
        ],
    );
    assert_eq!(table, "+----+\n| n  |\n+----+\n| 38 |\n+----+\n");
    // Parquet needs a file, and the file reads back.
    let r = run(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "parquet",
            q,
        ],
    );
    assert_eq!(r.code, 2);
    ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "parquet",
            "-o",
            "g.parquet",
            q,
        ],
    );
    let back = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "json",
            "--allow-files",
            "CREATE EXTERNAL TABLE g STORED AS PARQUET LOCATION 'g.parquet'; SELECT term FROM g ORDER BY term",
        ],
    );
    assert_eq!(back, "{\"term\":\"MRR\"}\n{\"term\":\"active customer\"}\n");
    // Without --allow-files, statements that reach files of their own are refused, and
    // nothing is written.
    for stmt in [
        "CREATE EXTERNAL TABLE p STORED AS CSV LOCATION '/etc/passwd'",
        "COPY (SELECT 1 AS a) TO 'copied.csv' STORED AS CSV",
        "CREATE VIEW v AS SELECT 1",
    ] {
        let r = run(tmp.path(), &["sql", "--data", d.to_str().unwrap(), stmt]);
        assert_eq!(r.code, 2, "{stmt}: {}", r.stderr);
        assert!(
            r.stderr.contains("give --allow-files"),
            "{stmt}: {}",
            r.stderr
        );
    }
    assert!(!tmp.path().join("copied.csv").exists());
}

#[test]
fn sql_reads_a_file_and_standard_input() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    std::fs::write(
        tmp.path().join("q.sql"),
        "-- two statements\nSELECT 1 AS a;\nSELECT count(*) AS n FROM pricing;\n",
    )
    .unwrap();
    let out = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "csv",
            "-f",
            "q.sql",
        ],
    );
    assert_eq!(out, "a\n1\nn\n15\n");
    let mut child = cmd(tmp.path())
        .args(["sql", "--data", d.to_str().unwrap(), "--format", "csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SELECT count(*) AS n FROM steps")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "n\n342\n");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let mut child = cmd(tmp.path())
        .args([
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "csv",
            "SELECT * FROM generate_series(1, 2000000)",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A user's SQL that does not plan is theirs to fix (exit 2), never "a bug in
/// groundcheck" (exit 4): whether it fails while parsing, resolving names or coercing
/// types, which DataFusion does in three different steps.
#[test]
fn sql_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    for (stmt, said) in [
        ("SELECT nope FROM cases", "nope"),
        ("SELEC 1", "cannot parse the SQL"),
        (
            "SELECT case_id FROM labels WHERE failure_evidence LIKE '%x%'",
            "LIKE",
        ),
        ("SELECT failures_by_class['nope'] FROM report", "nope"),
    ] {
        let r = run(tmp.path(), &["sql", "--data", d.to_str().unwrap(), stmt]);
        assert_eq!(r.code, 2, "{stmt}: {}", r.stderr);
        assert!(r.stderr.contains(said), "{stmt}: {}", r.stderr);
        assert!(!r.stderr.contains("bug"), "{stmt}: {}", r.stderr);
    }
}

/// DataFusion's options can be set from the environment (DataFusion's DATAFUSION_* names)
/// over ours; a name that is no option is refused with exit 2.
#[test]
fn datafusion_options_come_from_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let setting = "SELECT value FROM information_schema.df_settings \
                   WHERE name = 'datafusion.optimizer.prefer_hash_join'";
    let sql = |env: &[(&str, &str)]| {
        let mut c = crate::support::cmd(tmp.path());
        c.args([
            "sql",
            "--format",
            "csv",
            "--data",
            d.to_str().unwrap(),
            setting,
        ]);
        c.envs(env.iter().copied());
        crate::support::finish(c, crate::support::RUN_LIMIT)
    };
    let ours = sql(&[]);
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    assert_eq!(ours.stdout, "value\nfalse\n");
    let set = sql(&[("DATAFUSION_OPTIMIZER_PREFER_HASH_JOIN", "true")]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert_eq!(set.stdout, "value\ntrue\n");
    let bad = sql(&[("DATAFUSION_OPTIMIZER_NO_SUCH_THING", "1")]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("DATAFUSION_OPTIMIZER_NO_SUCH_THING: no DataFusion option"),
        "{}",
        bad.stderr
    );
}

#[test]
fn docs_tables_md_is_generated_from_the_code() {
    let generated = ok(&root(), &["tables", "--markdown"]);
    let committed = std::fs::read_to_string(root().join("docs/tables.md")).unwrap();
    assert!(
        generated == committed,
        "docs/tables.md is stale: run `cargo run -- tables --markdown > docs/tables.md`"
    );
}

#[test]
fn every_verb_says_what_it_reads_and_writes() {
    for verb in ["ingest", "sql", "tables"] {
        let help = ok(&root(), &[verb, "--help"]);
        assert!(help.contains("--data"), "{verb}: {help}");
        assert!(
            help.contains("Read") || help.contains("read"),
            "{verb}: {help}"
        );
        assert!(
            help.contains("rite") || verb == "tables",
            "{verb} --help says nothing of what it writes"
        );
    }
}

#[test]
fn tables_lists_where_each_table_was_found() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("cases.jsonl"), "").unwrap();
    let out = ok(tmp.path(), &["tables", "--data", "."]);
    let cases = out.lines().find(|l| l.starts_with("cases ")).unwrap();
    assert!(
        cases.contains("jsonl") && cases.contains("cases.jsonl"),
        "{cases}"
    );
    let steps = out.lines().find(|l| l.starts_with("steps ")).unwrap();
    assert!(steps.contains(" - "), "{steps}");
}

#[test]
fn the_seed_case_round_trips_through_parquet() {
    let tmp = tempfile::tempdir().unwrap();
    let seed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/seed_case.json")).unwrap(),
    )
    .unwrap();
    // The seed's text, one line, as cases.jsonl.
    std::fs::create_dir_all(tmp.path().join("p")).unwrap();
    std::fs::write(tmp.path().join("p/cases.jsonl"), format!("{seed}\n")).unwrap();
    ok(tmp.path(), &["ingest", "-q", "--data", "p", "--out", "out"]);
    let row = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            "out",
            "--format",
            "json",
            "SELECT * FROM cases",
        ],
    );
    let back: serde_json::Value = serde_json::from_str(row.trim()).unwrap();
    // gold.answer is kept as JSON text and the seed's "number" fields are floats;
    // everything else comes back as it went in.
    let mut expected = seed.clone();
    expected["gold"]["answer"] = serde_json::json!("1284");
    expected["gold"]["tolerance"] = serde_json::json!(0.0);
    expected["gold"]["freshness_bound_hours"] = serde_json::json!(24.0);
    assert_eq!(back, expected);
}

#[test]
fn docs_functions_md_is_generated_and_every_function_has_an_slt_file() {
    let generated = ok(&root(), &["functions"]);
    let committed = std::fs::read_to_string(root().join("docs/functions.md")).unwrap();
    assert!(
        generated == committed,
        "docs/functions.md is stale: run `cargo run -- functions > docs/functions.md`"
    );
    let slt: String = std::fs::read_dir(root().join("tests/slt/udfs"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for f in groundcheck_udfs::scalar_functions() {
        assert!(generated.contains(&format!("## `{}`", f.name())));
        assert!(
            f.documentation().is_some(),
            "{} has no documentation",
            f.name()
        );
        assert!(
            slt.contains(&format!("{}(", f.name())),
            "{} has no .slt test",
            f.name()
        );
        assert!(
            slt.contains(&format!("arrow_typeof({}(", f.name())),
            "{}: its return type is not pinned (arrow_typeof) in tests/slt/udfs",
            f.name()
        );
        // A `query error` or `statement error` record whose SQL calls the function.
        let lines: Vec<&str> = slt.lines().collect();
        let refused = lines.windows(2).any(|w| {
            (w[0].starts_with("query error") || w[0].starts_with("statement error"))
                && w[1].contains(&format!("{}(", f.name()))
        });
        assert!(
            refused,
            "{}: no error record in tests/slt/udfs shows what it refuses",
            f.name()
        );
    }
}

/// Each query .slt shows what its views refuse (a `query error` record): the misuse an
/// analyst is likely to try (a list compared as a string, a made-up struct field, a time
/// that is no timestamp), with the words DataFusion answers.
#[test]
fn every_query_slt_shows_a_refusal() {
    for p in walk(&root().join("tests/slt/queries")) {
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with("query error") || l.starts_with("statement error")),
            "{}: no `query error` record shows what its views refuse",
            p.display()
        );
    }
}

#[test]
fn every_view_is_queried_by_an_slt_file() {
    // A view is named by its header's first line (`-- view: name`, `-- metric: name`, …).
    let slt: String = walk(&root().join("tests/slt"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    // Queried: after FROM or JOIN (tables.slt lists every view's name, which is no query).
    let lower = slt.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let words: std::collections::HashSet<&str> = tokens
        .windows(2)
        .filter(|w| w[0] == "from" || w[0] == "join")
        .map(|w| w[1])
        .collect();
    let mut missing = Vec::new();
    for q in walk(&root().join("queries")) {
        if q.extension().is_none_or(|e| e != "sql") {
            continue;
        }
        let text = std::fs::read_to_string(&q).unwrap();
        let first = text.lines().next().unwrap_or_default();
        let name = first
            .split_once(": ")
            .map(|(_, n)| n.trim())
            .unwrap_or_default();
        if !words.contains(name.to_lowercase().as_str()) {
            missing.push(format!("{} ({name})", q.display()));
        }
    }
    assert!(missing.is_empty(), "views no .slt queries: {missing:#?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_closed_pipe_ends_every_printing_verb_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    for args in [
        vec!["functions"],
        vec!["drift", "--rules"],
        vec!["tables", "--markdown"],
        vec!["report", "-q", "--out", o],
        vec!["label", "-q", "--out", o],
        vec!["sql", "SELECT * FROM steps"],
        vec![
            "report",
            "-q",
            "--out",
            o,
            "diff",
            "generic-warehouse",
            "task-specific",
        ],
        vec!["review", "export", "-q", "--out", o],
        vec!["suite", "curate", "--out", o],
        vec!["sample", "--n", "5", "--out", o],
        vec!["anomalies", "--out", o],
        vec![
            "replay",
            "--candidate",
            "tests/fixtures/candidates/run_sql_renamed.jsonl",
            "--out",
            o,
        ],
    ] {
        let mut child = crate::support::cmd(&crate::support::root())
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the verb prints anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // A gate keeps its verdict: blocking drift read through `| head` still exits 1.
    let mut child = crate::support::cmd(&crate::support::root())
        .args([
            "drift",
            "tests/fixtures/drift/tools-v1.json",
            "tests/fixtures/drift/tools-v2.json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("drift: 5 finding(s) fail this run (--fail-on)"),
        "{stderr}"
    );
}

#[test]
fn notes_about_empty_tables_wait_for_verbose() {
    // Issue #22: twelve "note: table X: nothing at …" lines on every run. They are for -v.
    let tmp = tempfile::tempdir().unwrap();
    let d = crate::support::demo();
    let quiet = run(
        tmp.path(),
        &["sql", "--data", d.to_str().unwrap(), "SELECT 1"],
    );
    assert_eq!(quiet.code, 0);
    assert!(!quiet.stderr.contains("nothing at"), "{}", quiet.stderr);
    let loud = run(
        tmp.path(),
        &["sql", "-v", "--data", d.to_str().unwrap(), "SELECT 1"],
    );
    assert!(
        loud.stderr
            .contains("note: table report_history: nothing at"),
        "{}",
        loud.stderr
    );
}

/// `sql -o FILE` writes the format its extension names when --format is not given.
/// Issue #50: outputs are tables too. A --table name that is not an input table
/// registers a Parquet or JSON-lines file (a verb's output); a path that is not there is
/// one sentence, exit 2.
#[test]
fn sql_reads_outputs_by_path() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let out = tmp.path().join("out");
    ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "-o",
            out.join("x.parquet").to_str().unwrap(),
            "SELECT case_id, 1 AS one FROM cases",
        ],
    );
    ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "-o",
            out.join("x.jsonl").to_str().unwrap(),
            "SELECT case_id, 2 AS two FROM cases",
        ],
    );
    let printed = ok(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--format",
            "csv",
            "--table",
            &format!("p={}", out.join("x.parquet").display()),
            "--table",
            &format!("j={}", out.join("x.jsonl").display()),
            "SELECT count(*) AS n, sum(one) AS ones, sum(two) AS twos FROM p JOIN j USING (case_id)",
        ],
    );
    let cases = std::fs::read_to_string(d.join("cases.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(
        printed,
        format!("n,ones,twos\n{cases},{cases},{}\n", 2 * cases)
    );
    let r = run(
        tmp.path(),
        &[
            "sql",
            "--data",
            d.to_str().unwrap(),
            "--table",
            "x=/no/such/file.parquet",
            "SELECT 1",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no such file or folder"), "{}", r.stderr);
}

#[test]
fn sql_output_format_follows_the_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    for (file, starts) in [
        ("x.parquet", &b"PAR1"[..]),
        ("x.csv", &b"a\n1\n"[..]),
        ("x.jsonl", &b"{\"a\":1}\n"[..]),
    ] {
        ok(
            tmp.path(),
            &[
                "sql",
                "--data",
                d.to_str().unwrap(),
                "-o",
                file,
                "SELECT 1 AS a",
            ],
        );
        let bytes = std::fs::read(tmp.path().join(file)).unwrap();
        assert!(bytes.starts_with(starts), "{file}: {bytes:?}");
    }
}
