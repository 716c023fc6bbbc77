//! Tool-call verdicts against the Berkeley Function Calling Leaderboard's own AST checker:
//! tests/bfcl/agree.py (in the bfcl venv scripts/setup.sh installs) takes every case of
//! BFCL's single-turn Python categories, builds model outputs from the possible answers
//! and perturbations of them (each in the function-calling style and in Python call
//! syntax made by Python's repr), and records what BFCL's checker says of each; groundcheck
//! imports the same files (`import bfcl`) and must say the same of every pair.

use std::collections::BTreeMap;

use crate::producers::venv_python;
use crate::support::{ok, root, sql_csv};

#[test]
fn bfcl_verdicts_equal_bfcls_own_checker_on_every_pair() {
    let tmp = tempfile::tempdir().unwrap();
    let pairs = tmp.path().join("pairs");
    let script = root().join("tests/bfcl/agree.py");
    let out = std::process::Command::new(venv_python("bfcl"))
        .arg(&script)
        .arg(&pairs)
        .arg("100000")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let project = tmp.path().join("project");
    let mut kinds = Vec::new();
    for e in std::fs::read_dir(&pairs).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(kind) = name
            .strip_prefix("result-")
            .and_then(|k| k.strip_suffix(".json"))
        {
            kinds.push(kind.to_string());
        }
    }
    kinds.sort();
    assert!(kinds.len() >= 10, "{kinds:?}");
    for kind in &kinds {
        let p = |f: &str| pairs.join(f).to_string_lossy().into_owned();
        let said = ok(
            &root(),
            &[
                "import",
                "bfcl",
                &p("questions.json"),
                &p("answers.json"),
                &p(&format!("result-{kind}.json")),
                "--server",
                kind,
                "--out",
                project.to_str().unwrap(),
            ],
        );
        assert!(said.contains("result(s) as traces of server"), "{said}");
    }
    let ours: BTreeMap<(String, String), (String, String)> = sql_csv(
        &project,
        &[],
        "SELECT server, case_id, tool_calls_valid, coalesce(tool_calls_reason, '') AS reason \
         FROM task_tool_calls",
    )
    .lines()
    .skip(1)
    .map(|l| {
        let f: Vec<&str> = l.splitn(4, ',').collect();
        (
            (f[0].to_string(), f[1].to_string()),
            (f[2].to_string(), f[3].to_string()),
        )
    })
    .collect();
    let verdicts = std::fs::read_to_string(pairs.join("verdicts.tsv")).unwrap();
    let (mut total, mut valid) = (0, 0);
    let mut differ = Vec::new();
    for line in verdicts.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (kind, id, bfcl, error) = (f[0], f[1], f[2], f[3]);
        total += 1;
        valid += usize::from(bfcl == "true");
        match ours.get(&(kind.to_string(), id.to_string())) {
            Some((v, _)) if v == bfcl => {}
            got => differ.push(format!(
                "{kind} {id}: BFCL {bfcl} ({error}), groundcheck {got:?}"
            )),
        }
    }
    assert!(total > 30_000, "{total} pairs");
    assert!(valid > 8_000 && valid < total - 16_000, "{valid} valid");
    assert!(kinds.iter().any(|k| k.ends_with("_py")), "{kinds:?}");
    assert!(
        differ.is_empty(),
        "{} of {total} pairs differ:\n{}",
        differ.len(),
        differ[..differ.len().min(20)].join("\n")
    );
}

/// Both result styles (function-calling `[{name: "{json}"}]` and the Python call syntax of
/// prompting models), an irrelevance question (no call expected), and a line that is none
/// of BFCL's records, which is named with its file and line.
#[test]
fn bfcl_import_reads_both_result_styles_and_names_bad_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let f = r#"[{"name": "area", "description": "Area.", "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}, "unit": {"type": "string"}}, "required": ["base"]}}]"#;
    std::fs::write(
        d.join("q.json"),
        format!(
            "{{\"id\": \"simple_python_9\", \"question\": [[{{\"role\": \"user\", \"content\": \"Area of base 10?\"}}]], \"function\": {f}}}\n\
             {{\"id\": \"irrelevance_3\", \"question\": [[{{\"role\": \"user\", \"content\": \"Tell me a joke.\"}}]], \"function\": {f}}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("a.json"),
        "{\"id\": \"simple_python_9\", \"ground_truth\": [{\"area\": {\"base\": [10], \"unit\": [\"cm\", \"\"]}}]}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("fc.json"),
        "{\"id\": \"simple_python_9\", \"result\": [{\"area\": \"{\\\"base\\\": 10}\"}]}\n\
         {\"id\": \"irrelevance_3\", \"result\": []}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("prompt.json"),
        "{\"id\": \"simple_python_9\", \"result\": \"[area(base=10, unit='CM')]\"}\n\
         {\"id\": \"irrelevance_3\", \"result\": \"[area(base=1)]\"}\n",
    )
    .unwrap();
    for (file, server) in [("fc.json", "fc"), ("prompt.json", "prompting")] {
        ok(
            d,
            &[
                "import", "bfcl", "q.json", "a.json", file, "--server", server, "--out", "p",
            ],
        );
    }
    assert_eq!(
        sql_csv(
            &d.join("p"),
            &[],
            "SELECT server, case_id, correct, tool_calls_valid, tool_call_f1 FROM labels ORDER BY server, case_id"
        ),
        "server,case_id,correct,tool_calls_valid,tool_call_f1\n\
         fc,irrelevance_3,true,true,1.0\n\
         fc,simple_python_9,true,true,1.0\n\
         prompting,irrelevance_3,false,false,0.0\n\
         prompting,simple_python_9,true,true,1.0\n"
    );
    // Scored on what it has (issue #50): a BFCL project has no required fields, policies,
    // glossary or prices, so those figures are NULL, nothing goes to review for them, the
    // report opens with the tool-call figures and one note per figure says why.
    let report = ok(d, &["report", "--data", "p", "--out", "r", "--html"]);
    let page = std::fs::read_to_string(d.join("r/report.html")).unwrap();
    assert!(
        page.contains(
            "data-not-scored=\"fc/grounding\">not scored on fc: grounding in 2 of 2 task(s)"
        ),
        "the page says it too"
    );
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines[0].starts_with("metric") && lines[1].starts_with("tool_call_tasks"),
        "{report}"
    );
    for (metric, value) in [
        ("needs_human_review", "0"),
        ("correct_and_grounded", "-"),
        ("grounding_precision", "-"),
        ("policy_violation_rate", "-"),
        ("cost_per_correct_answer_usd", "-"),
    ] {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(metric))
            .unwrap_or_else(|| panic!("{metric} missing:\n{report}"));
        assert!(
            line.split_whitespace().skip(1).all(|v| v == value),
            "{metric}: {line}"
        );
    }
    for figure in ["cost", "definition", "grounding", "policy"] {
        for server in ["fc", "prompting"] {
            assert!(
                report.contains(&format!(
                    "not scored on {server}: {figure} in 2 of 2 task(s): "
                )),
                "{figure} on {server}:\n{report}"
            );
        }
    }
    assert!(!report.contains("no policy row"), "{report}");
    // BFCL's files name their cases: the flags that tie traces to cases are refused.
    let r = crate::support::run(
        d,
        &[
            "import", "bfcl", "q.json", "--cases", "q.json", "--out", "p3",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--cases, --case-from and --allow-unmatched do not apply"),
        "{}",
        r.stderr
    );
    std::fs::write(d.join("bad.json"), "{\"id\": \"x\", \"answer\": 1}\n").unwrap();
    let r = crate::support::run(d, &["import", "bfcl", "q.json", "bad.json", "--out", "p2"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("bad.json:1: neither a question"),
        "{}",
        r.stderr
    );
}
