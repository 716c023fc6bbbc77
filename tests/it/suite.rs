//! The eval-set lifecycle on the demo: `sample`, `suite curate`, `suite impact`, `suite
//! rerun`, and the report history behind queries/trends.sql.

use crate::support::{demo, ok, root, run, sql_csv};

fn sample(out: &std::path::Path, seed: &str, n: &str) -> crate::support::Run {
    let d = demo();
    run(
        &root(),
        &[
            "sample",
            "-n",
            n,
            "--seed",
            seed,
            "--data",
            d.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    )
}

#[test]
fn sample_is_stratified_weighted_and_repeatable() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    let r = sample(&a, "7", "20");
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Every stratum listed, the sampled column sums to n, retries and clarifications
    // (weight 3) are all taken while clean strata give up most of theirs.
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines.contains(&"run_sql                        finance_analyst  clarification       4       3        3"), "{}", r.stdout);
    assert!(lines.contains(&"run_sql                        finance_analyst          clean      20       1        4"), "{}", r.stdout);
    assert_eq!(
        lines.last().unwrap().split_whitespace().collect::<Vec<_>>(),
        ["total", "80", "20"]
    );
    let sampled: usize = lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            l.split_whitespace()
                .last()
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(sampled, 20);
    assert!(
        r.stderr
            .contains("warning: a sample of 20 traces; seed 000: fewer than 50 is not enough"),
        "{}",
        r.stderr
    );
    let sheet = std::fs::read_to_string(a.join("sample/worksheet.jsonl")).unwrap();
    assert_eq!(sheet.lines().count(), 20);
    let first: serde_json::Value = serde_json::from_str(sheet.lines().next().unwrap()).unwrap();
    assert!(
        first["gold"]["answer"].is_null()
            && first["question"].is_string()
            && first["as_user"].is_string()
    );
    assert_eq!(first["source_trace"], first["case_id"]);
    // Same seed, same bytes; another seed, another sample.
    sample(&b, "7", "20");
    assert_eq!(
        std::fs::read(a.join("sample/worksheet.jsonl")).unwrap(),
        std::fs::read(b.join("sample/worksheet.jsonl")).unwrap()
    );
    assert_eq!(
        std::fs::read(a.join("sample/sample.parquet")).unwrap(),
        std::fs::read(b.join("sample/sample.parquet")).unwrap()
    );
    sample(&c, "8", "20");
    assert_ne!(
        std::fs::read(a.join("sample/worksheet.jsonl")).unwrap(),
        std::fs::read(c.join("sample/worksheet.jsonl")).unwrap()
    );
    // The sample as Parquet: the trace_outcomes rows drawn, one per trace.
    use parquet::file::reader::FileReader;
    let file = std::fs::File::open(a.join("sample/sample.parquet")).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 20);
    let columns: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    assert!(
        columns.contains(&"outcome".to_string()) && columns.contains(&"draw".to_string()),
        "{columns:?}"
    );
    // More than there is: everything, no error.
    let r = sample(&c, "1", "500");
    assert!(
        r.stdout
            .lines()
            .last()
            .unwrap()
            .ends_with("80               80"),
        "{}",
        r.stdout
    );
}

#[test]
fn curate_keeps_what_exposes_grounding() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let out = ok(
        &root(),
        &[
            "suite",
            "curate",
            "--data",
            d.to_str().unwrap(),
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert!(
        out.contains("KEEP acme-open-tickets-003: fails on task-specific@demo-2026-07-02\n"),
        "{out}"
    );
    assert!(
        out.contains("DROP amer-active-q1-002: passes grounded on every configuration (2)\n"),
        "{out}"
    );
    assert!(
        out.ends_with(&format!(
            "kept 18 of 40 cases -> {}\n",
            tmp.path().join("suite/cases.jsonl").display()
        )),
        "{out}"
    );
    // The kept cases, exactly as given, are a cases file of their own.
    let kept = std::fs::read_to_string(tmp.path().join("suite/cases.jsonl")).unwrap();
    assert_eq!(kept.lines().count(), 18);
    let given = std::fs::read_to_string(d.join("cases.jsonl")).unwrap();
    assert!(kept.lines().all(|l| given.lines().any(|g| g == l)));
}

#[test]
fn impact_and_rerun_select_exactly_the_touched_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let old = root().join("tests/fixtures/old-context");
    let args = |verb: &[&str]| {
        let mut a: Vec<String> = verb.iter().map(|s| s.to_string()).collect();
        a.extend(
            [
                "--old",
                old.to_str().unwrap(),
                "--data",
                d.to_str().unwrap(),
                "--out",
                tmp.path().to_str().unwrap(),
            ]
            .map(String::from),
        );
        a
    };
    let a = args(&["suite", "impact"]);
    let out = ok(&root(), &a.iter().map(String::as_str).collect::<Vec<_>>());
    // The old version differs in one column type, one column description, one glossary
    // definition, one policy row and one tool: each touches its own cases, a column the
    // cases whose gold names it and those whose traces read it (the revenue cases name
    // no region column, but both servers' calls read customers.sales_region).
    for line in [
        "acme-open-tickets-003: catalog column customers.sales_region changed (read on task-specific); tool open_tickets (task-specific) changed\n",
        "amer-churn-q1-025: catalog column customers.sales_region changed (in gold, read on generic-warehouse, read on task-specific); glossary term 'churned customer' changed\n",
        "apac-deals-closing-037: policy own_region for sales.mgr.apac added\n",
        "emea-revenue-q1-006: catalog column customers.sales_region changed (read on generic-warehouse, read on task-specific)\n",
        "emea-active-q2-017: catalog column customers.is_active changed (in gold, read on generic-warehouse); catalog column customers.sales_region changed (in gold, read on task-specific)\n",
        "globex-open-tickets-010: tool open_tickets (task-specific) changed\n",
    ] {
        assert!(out.contains(line), "{line}\n---\n{out}");
    }
    assert!(out.contains("27 case(s) touched by the change"), "{out}");
    assert!(
        !out.contains("pipeline-dana-027"),
        "a policy row for another user touches nothing: {out}"
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("suite/changed_cases.jsonl"))
            .unwrap()
            .lines()
            .count(),
        27
    );
    let a = args(&["suite", "rerun"]);
    let out = ok(&root(), &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.contains("re-scored 27 case(s) the change touches"),
        "{out}"
    );
    let labels = std::fs::read_to_string(tmp.path().join("labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 54, "27 cases x 2 servers");
}

#[test]
fn report_history_feeds_the_trends_query() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let history = tmp.path().join("project/history");
    for (at, note) in [
        ("2026-07-02T06:00:00Z", "first"),
        ("2026-07-03T06:00:00Z", "same traces"),
    ] {
        ok(
            &root(),
            &[
                "report",
                "--data",
                d.to_str().unwrap(),
                "--out",
                tmp.path().join("out").to_str().unwrap(),
                "--history",
                history.to_str().unwrap(),
                "--recorded-at",
                at,
                "--note",
                note,
            ],
        );
    }
    assert_eq!(std::fs::read_dir(&history).unwrap().count(), 2);
    let q = |sql: &str| sql_csv(&d, &[("report_history", &history)], sql);
    assert_eq!(
        q(
            "SELECT count(*) AS n, count(DISTINCT metric) AS metrics FROM report_history WHERE server = 'task-specific'"
        ),
        "n,metrics\n38,19\n"
    );
    assert_eq!(
        q(
            "SELECT value FROM report_history WHERE server = 'task-specific' AND metric = 'correct' ORDER BY recorded_at"
        ),
        "value\n36.0\n36.0\n"
    );
    // The same traces twice: nothing moved.
    assert_eq!(
        q("SELECT count(*) AS moved FROM metric_trends"),
        "moved\n0\n"
    );
}
