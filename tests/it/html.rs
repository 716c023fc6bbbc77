//! The HTML pages, loaded in a real browser: Debian's Chromium, headless and offline,
//! driven by playwright-core (tests/browser/check.mjs, installed by scripts/setup.sh).
//! The tests assert on the rendered DOM; screenshots are kept under the target dir's
//! test tmp folder (`html/`), to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{demo, ok, root, run};

/// Where this run's screenshots go (kept after the tests, as artifacts).
fn artifacts(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("html")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What the browser saw on `page`, opening the panels `panels` (SERVER@RUN/CASE).
fn browse(page: &Path, shots: &Path, panels: &[&str]) -> Value {
    let dir = root().join("tests/browser");
    assert!(
        dir.join("node_modules/playwright-core").is_dir(),
        "tests/browser/node_modules is missing: run scripts/setup.sh (it installs Chromium and playwright-core)"
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists(),
        "{chromium} is missing: run scripts/setup.sh (Debian's chromium package)"
    );
    let out = Command::new("node")
        .current_dir(&dir)
        .arg("check.mjs")
        .arg(page)
        .arg(shots)
        .args(panels)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "check.mjs failed on {}:\n{}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let facts: Value = serde_json::from_slice(&out.stdout).expect("check.mjs prints JSON");
    assert_eq!(
        facts["requests"],
        serde_json::json!([]),
        "the page asked the network"
    );
    assert_eq!(
        facts["errors"],
        serde_json::json!([]),
        "script errors on the page"
    );
    facts
}

fn plot<'a>(facts: &'a Value, id: &str) -> &'a Value {
    facts["plots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("no plot {id}: {}", facts["plots"]))
}

fn report_html(out: &Path, extra: &[&str]) {
    let data = demo();
    let mut args = vec![
        "report",
        "--html",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend(extra);
    ok(&root(), &args);
}

#[test]
fn the_demo_report_page_in_a_real_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    report_html(&out, &[]);
    let shots = artifacts("report");
    let facts = browse(
        &out.join("report.html"),
        &shots,
        &[
            "generic-warehouse@demo-2026-07-02/amer-revenue-total-cents-036",
            "generic-warehouse@demo-2026-07-02/acme-contact-email-013",
        ],
    );

    // Every figure of report.json is in the page, the same value (the same SQL).
    let report: Vec<serde_json::Map<String, Value>> =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let cells = facts["cells"].as_array().unwrap();
    let mut compared = 0;
    for r in &report {
        let side = format!(
            "{}@{}",
            r["server"].as_str().unwrap(),
            r["run_id"].as_str().unwrap()
        );
        let mut fields: Vec<(String, &Value)> = Vec::new();
        for (k, v) in r {
            match v {
                Value::Object(m) => {
                    fields.extend(m.iter().map(|(c, n)| (format!("{k}.{c}"), n)));
                }
                _ if k == "server" || k == "run_id" => {}
                _ => fields.push((k.clone(), v)),
            }
        }
        for (field, want) in fields {
            let cell = cells
                .iter()
                .find(|c| c["metric"] == field.as_str() && c["side"] == side.as_str())
                .unwrap_or_else(|| panic!("no cell for {field} on {side}"));
            let got: Value = serde_json::from_str(cell["value"].as_str().unwrap()).unwrap();
            assert_eq!(&got, want, "{field} on {side}");
            compared += 1;
        }
    }
    assert_eq!(compared, 2 * 17, "every report.json field of both servers");
    // The text shown is the printed report's.
    let golden = std::fs::read_to_string(root().join("tests/golden/demo/report.txt")).unwrap();
    let line = golden
        .lines()
        .find(|l| l.starts_with("grounding_precision"))
        .unwrap();
    for c in cells
        .iter()
        .filter(|c| c["metric"] == "grounding_precision")
    {
        assert!(line.contains(c["text"].as_str().unwrap()), "{c} vs {line}");
    }

    // The first screen: the banner, then two servers with the same pass rate and
    // different grounding, whole within 900 pixels.
    assert_eq!(
        facts["banner"][0],
        "POLICY VIOLATIONS on generic-warehouse: 2 of 43 calls returned rows or columns the user may not see (a release blocker)"
    );
    let cards = facts["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 2);
    for c in cards {
        assert!(c["box"]["bottom"].as_f64().unwrap() <= 900.0, "{c}");
    }
    assert_eq!(
        cards[0]["metrics"]["pass_rate"],
        cards[1]["metrics"]["pass_rate"]
    );
    assert_eq!(cards[0]["metrics"]["correct_and_grounded"], "25");
    assert_eq!(cards[1]["metrics"]["correct_and_grounded"], "36");
    assert_eq!(cards[0]["metrics"]["correct_not_grounded"], "11");

    // Definitions on hover come from the .sql headers.
    let q = |f: &str| {
        let text = std::fs::read_to_string(root().join("queries").join(f)).unwrap();
        text.lines()
            .take_while(|l| l.starts_with("--"))
            .skip_while(|l| !l.starts_with("-- definition:"))
            .take_while(|l| l.starts_with("-- definition:") || l.starts_with("--   "))
            .map(|l| {
                l.trim_start_matches("-- definition:")
                    .trim_start_matches("--")
                    .trim()
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let def = facts["definitions"]["grounding_precision"]
        .as_str()
        .unwrap();
    assert!(def.starts_with(&q("metrics/grounding.sql")), "{def}");
    let def = facts["definitions"]["pass_rate"].as_str().unwrap();
    assert!(def.starts_with("pass_rate: correct / cases"), "{def}");

    // Every plot renders: failures by class (a bar per class and server with any), the
    // scatter (a point per distinct precision and recall), cost per correct answer.
    let f = plot(&facts, "failures");
    assert!(f["rects"].as_u64().unwrap() >= 7, "{f}");
    assert!(f["width"].as_f64().unwrap() > 300.0, "{f}");
    for class in ["entity", "semantic", "structural", "temporal", "policy"] {
        assert!(
            f["texts"].as_array().unwrap().iter().any(|t| t == class),
            "{f}"
        );
    }
    let s = plot(&facts, "precision-recall");
    assert!(s["circles"].as_u64().unwrap() >= 10, "{s}");
    assert!(
        s["caption"]
            .as_str()
            .unwrap()
            .contains("78 of 80 tasks drawn"),
        "{s}"
    );
    let c = plot(&facts, "cost");
    assert!(c["rects"].as_u64().unwrap() >= 3, "{c}");
    assert!(
        facts["missing"][0]
            .as_str()
            .unwrap()
            .starts_with("Metric trends: no report_history"),
        "{}",
        facts["missing"]
    );

    // The case table: every task, worst first, sortable and filterable.
    assert_eq!(facts["tables"]["cases"], 80);
    let concern = facts["sorted_by_concern"].as_array().unwrap();
    assert!(concern.windows(2).all(|w| w[0].as_i64() >= w[1].as_i64()));
    assert_eq!(concern[0], 5, "a policy violation comes first");
    assert_eq!(facts["filtered"]["count"], "40 of 80 shown");

    // The case the seed tells: the step where the model guessed lights up on hover; the
    // forbidden column is marked red in the SQL, the required ones green.
    let p = &facts["panels"][0];
    assert_eq!(p["found"], true);
    assert_eq!(p["visible"], true, "{p}");
    let marks = p["sql_marks"].as_array().unwrap();
    let mark = |t: &str| {
        marks
            .iter()
            .find(|m| m["text"] == t)
            .unwrap_or_else(|| panic!("{t}: {p}"))
    };
    assert_eq!(mark("total_cents")["mark"], "forbidden");
    assert_eq!(mark("total_cents")["background"], "rgb(255, 217, 214)");
    assert_eq!(mark("status")["mark"], "required");
    assert_eq!(mark("status")["background"], "rgb(215, 245, 227)");
    assert_eq!(mark("sales_region")["mark"], "used");
    let steps = p["steps"].as_array().unwrap();
    let guessed: Vec<&Value> = steps.iter().filter(|s| s["guessed"] == true).collect();
    assert_eq!(guessed.len(), 1, "{p}");
    assert_eq!(guessed[0]["kind"], "reasoning");
    assert_eq!(guessed[0]["background"], "rgb(255, 241, 168)");
    assert_eq!(
        p["task_evidence"],
        serde_json::json!(["semantic/forbidden-field: used orders.total_cents"])
    );
    assert!(
        p["gold"].as_str().unwrap().contains("\"answer\": 733904.0"),
        "{p}"
    );
    // A symptom tied to a call is pinned to that call's step.
    let q = &facts["panels"][1];
    let flagged: Vec<&Value> = q["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["flagged"] == true)
        .collect();
    assert_eq!(flagged.len(), 1, "{q}");
    assert_eq!(flagged[0]["kind"], "tool_call");
    assert_eq!(
        flagged[0]["evidence"],
        serde_json::json!(["policy/oracle: column email returned unmasked"])
    );
    for shot in [
        "first-screen.png",
        "full-page.png",
        "panel-amer-revenue-total-cents-036.png",
    ] {
        assert!(
            std::fs::metadata(shots.join(shot)).unwrap().len() > 10_000,
            "{shot}"
        );
    }

    // `groundcheck html OUT` renders the saved folder to the same bytes.
    let again = tmp.path().join("again.html");
    ok(
        &root(),
        &[
            "html",
            out.to_str().unwrap(),
            "--data",
            demo().to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ],
    );
    assert!(
        std::fs::read(&again).unwrap() == std::fs::read(out.join("report.html")).unwrap(),
        "html OUT differs from report --html"
    );
}

#[test]
fn trends_mark_the_tool_changes_between_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let fx = root().join("tests/fixtures/drift");
    let history = format!("report_history={}", fx.join("history").display());
    let snaps = format!("tool_snapshots={}", fx.join("snapshots").display());
    report_html(&out, &["--table", &history, "--table", &snaps]);
    let facts = browse(&out.join("report.html"), &artifacts("trends"), &[]);
    // The fixture's history (tests/slt/queries/trends.slt): grounding_recall 0.9, 0.7, 0.72 on the
    // docs server, the search tool renamed between the first two.
    let t = plot(&facts, "trend-grounding-recall");
    assert!(
        t["caption"].as_str().unwrap().contains("2 tool change(s)"),
        "{t}"
    );
    let texts: Vec<&str> = t["texts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("search: input-property-li")),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"docs"),
        "the legend names the server: {texts:?}"
    );
    assert!(
        t["circles"].as_u64().unwrap() >= 3,
        "a point per recording: {t}"
    );
}

#[test]
fn a_large_report_keeps_the_worst_cases_and_a_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    report_html(&out, &["--html-cases", "10"]);
    let facts = browse(&out.join("report.html"), &artifacts("large"), &[]);
    let cases = facts["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 10);
    let note = facts["cases_note"].as_str().unwrap();
    assert!(
        note.starts_with("80 tasks: this table holds the 5 of most concern")
            && note.contains("a sample of 5 others")
            && note.contains("labels.parquet"),
        "{note}"
    );
    // The worst five first: both policy violations, then wrong answers.
    let flags: Vec<&str> = cases[..5]
        .iter()
        .map(|c| c["flags"].as_str().unwrap())
        .collect();
    assert!(
        flags[0].contains("policy") && flags[1].contains("policy"),
        "{flags:?}"
    );
    assert!(flags[2..].iter().all(|f| f.contains("wrong")), "{flags:?}");
    // The same labels draw the same sample.
    let again = tmp.path().join("again.html");
    ok(
        &root(),
        &[
            "html",
            out.to_str().unwrap(),
            "--data",
            demo().to_str().unwrap(),
            "--html-cases",
            "10",
            "-o",
            again.to_str().unwrap(),
        ],
    );
    assert!(std::fs::read(&again).unwrap() == std::fs::read(out.join("report.html")).unwrap());
}

#[test]
fn drift_and_diff_pages_in_a_real_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = root().join("tests/fixtures/drift");
    let page = tmp.path().join("drift.html");
    let r = run(
        &root(),
        &[
            "drift",
            fx.join("tools-v1.json").to_str().unwrap(),
            fx.join("tools-v2.json").to_str().unwrap(),
            "--format",
            "html",
            "-o",
            page.to_str().unwrap(),
        ],
    );
    assert_eq!(
        r.code, 1,
        "blocking changes still fail the gate: {}",
        r.stderr
    );
    let json = run(
        &root(),
        &[
            "drift",
            fx.join("tools-v1.json").to_str().unwrap(),
            fx.join("tools-v2.json").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let want: Value = serde_json::from_str(&json.stdout).unwrap();
    let facts = browse(&page, &artifacts("drift"), &[]);
    let rules: Vec<&Value> = want["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["rule"])
        .collect();
    let shown: Vec<&Value> = facts["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["rule"])
        .collect();
    assert_eq!(
        shown, rules,
        "the same changes in the same order as --format json"
    );
    let p = plot(&facts, "severity");
    let texts = p["texts"].as_array().unwrap();
    for s in [
        "breaking",
        "likely-breaking",
        "compatible",
        "search",
        "export_all",
    ] {
        assert!(texts.iter().any(|t| t == s), "{s}: {p}");
    }
    assert_eq!(
        facts["banner"][0],
        format!(
            "{} blocking change(s): a client built against the old tools breaks.",
            want["summary"]["block"]
        )
    );

    // report diff A B --html: every delta, the flipped cases.
    let out = tmp.path().join("diff");
    ok(
        &root(),
        &[
            "report",
            "--data",
            demo().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "diff",
            "generic-warehouse",
            "task-specific",
            "--html",
        ],
    );
    let facts = browse(&out.join("diff.html"), &artifacts("diff"), &[]);
    let deltas = facts["deltas"].as_array().unwrap();
    let row = |m: &str| deltas.iter().find(|d| d["metric"] == m).unwrap();
    assert_eq!(
        row("correct_and_grounded")["cells"],
        serde_json::json!(["correct_and_grounded", "25", "36", "+11"])
    );
    assert_eq!(row("correct_and_grounded")["trend"], "better");
    assert_eq!(row("policy_violation_rate")["trend"], "better");
    assert_eq!(row("correct")["trend"], "same");
    assert!(!facts["flips"].as_array().unwrap().is_empty());
    assert!(plot(&facts, "rates")["rects"].as_u64().unwrap() >= 8);
}

#[test]
fn html_says_what_is_wrong_in_one_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    // No labels in the folder.
    let r = run(&root(), &["html", tmp.path().to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no labels.parquet"), "{}", r.stderr);
    // Labels from one project, traces asked of another that has none of their cases.
    let out = tmp.path().join("out");
    report_html(&out, &[]);
    let other = root().join("tests/fixtures/drift");
    let r = run(
        &root(),
        &[
            "html",
            out.to_str().unwrap(),
            "--data",
            other.to_str().unwrap(),
            "-o",
            tmp.path().join("x.html").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("has no steps for any of the 80 cases"),
        "{}",
        r.stderr
    );
    assert!(!tmp.path().join("x.html").exists(), "no page on an error");
    // --no-traces renders from the labels alone, and says so.
    let page = tmp.path().join("labels-only.html");
    ok(
        &root(),
        &[
            "html",
            out.to_str().unwrap(),
            "--no-traces",
            "-o",
            page.to_str().unwrap(),
        ],
    );
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(
        text.contains("The panels show each case&#x27;s label")
            || text.contains("The panels show each case's label"),
        "panels note missing"
    );
}
