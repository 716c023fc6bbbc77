//! `groundcheck import` and `--traces-from` on hand-written exports of each format.

use crate::support::{demo, ok, root, run, sql_csv};

fn steps(dir: &std::path::Path, file: &str) -> String {
    sql_csv(
        dir,
        &[("steps", &dir.join("traces").join(file))],
        "SELECT server, trace_id, step, CAST(ts AS VARCHAR) AS ts, kind, call_id, tool, arguments, result, is_error, \
         CAST(as_of AS VARCHAR) AS as_of, as_user, case_id, model, input_tokens, output_tokens, text FROM steps ORDER BY trace_id, step",
    )
}

#[test]
fn otlp_genai_and_mcp_conventions() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ok(
        &root(),
        &[
            "import",
            "otlp",
            "tests/fixtures/import/otlp-genai.json",
            "tests/fixtures/import/otlp-mcp.jsonl",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(
        out,
        format!(
            "7 record(s) -> 13 step(s) in 2 trace(s): {}\nlacking: as_of on tool results: 4\n",
            tmp.path().join("traces/otlp.parquet").display()
        )
    );
    assert_eq!(steps(tmp.path(), "otlp.parquet"), "\
server,trace_id,step,ts,kind,call_id,tool,arguments,result,is_error,as_of,as_user,case_id,model,input_tokens,output_tokens,text
support-mcp,conv-acme-tickets,1,2025-07-02T09:00:00Z,user,,,,,,,,acme-open-tickets-003,,,,How many open tickets does Acme have?
support-mcp,conv-acme-tickets,2,2025-07-02T09:00:01.200Z,assistant,,,,,,,,acme-open-tickets-003,gpt-4.1,1210,35,
support-mcp,conv-acme-tickets,3,2025-07-02T09:00:01.300Z,tool_call,call_1,lookup_account,\"{\"\"name\"\":\"\"Acme\"\"}\",,,,support.agent.03,acme-open-tickets-003,,,,
support-mcp,conv-acme-tickets,4,2025-07-02T09:00:01.900Z,tool_result,call_1,lookup_account,,\"{\"\"_meta\"\":{\"\"as_of\"\":\"\"2025-07-02T08:50:00Z\"\"},\"\"account_id\"\":\"\"C2-00001234\"\",\"\"name\"\":\"\"Acme Corp\"\"}\",false,2025-07-02T08:50:00Z,support.agent.03,acme-open-tickets-003,,,,
support-mcp,conv-acme-tickets,5,2025-07-02T09:00:02Z,tool_call,call_2,open_tickets,\"{\"\"account\"\":\"\"Acme\"\"}\",,,,support.agent.03,acme-open-tickets-003,,,,
support-mcp,conv-acme-tickets,6,2025-07-02T09:00:02.400Z,tool_result,call_2,open_tickets,,\"{\"\"error\"\":\"\"invalid_argument\"\"}\",true,,support.agent.03,acme-open-tickets-003,,,,
support-mcp,conv-acme-tickets,7,2025-07-02T09:00:03Z,tool_call,call_3,open_tickets,\"{\"\"account_id\"\":\"\"C2-00001234\"\"}\",,,,support.agent.03,acme-open-tickets-003,,,,
support-mcp,conv-acme-tickets,8,2025-07-02T09:00:03.600Z,tool_result,call_3,open_tickets,,\"{\"\"count\"\":7,\"\"tickets\"\":[]}\",false,,support.agent.03,acme-open-tickets-003,,,,
support-mcp,conv-acme-tickets,9,2025-07-02T09:00:13.500Z,answer,,,,,,,,acme-open-tickets-003,gpt-4.1,1840,41,Acme has 7 open tickets.
warehouse-mcp,sess-42,1,2025-07-02T09:01:40Z,tool_call,1,run_sql,\"{\"\"sql\"\":\"\"SELECT count(*) FROM customers\"\"}\",,,,fin.analyst.02,,,,,
warehouse-mcp,sess-42,2,2025-07-02T09:01:40.400Z,tool_result,1,run_sql,,\"{\"\"columns\"\":[\"\"count\"\"],\"\"rows\"\":[[1284]]}\",false,,fin.analyst.02,,,,,
warehouse-mcp,sess-42,3,2025-07-02T09:01:41Z,tool_call,2,run_sql,\"{\"\"query\"\":\"\"SELECT 1\"\"}\",,,,fin.analyst.02,,,,,
warehouse-mcp,sess-42,4,2025-07-02T09:01:41.100Z,tool_result,2,run_sql,,\"{\"\"error\"\":\"\"tool_error\"\"}\",true,,fin.analyst.02,,,,,
");
}

#[test]
fn openinference_spans_from_phoenix() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ok(
        &root(),
        &[
            "import",
            "openinference",
            "tests/fixtures/import/phoenix.jsonl",
            "--server",
            "finance-mcp",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert!(
        out.ends_with("lacking: as_of on tool results: 1\n"),
        "{out}"
    );
    let rows = steps(tmp.path(), "openinference.parquet");
    let kinds: Vec<&str> = rows
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["user", "assistant", "tool_call", "tool_result", "answer"]
    );
    assert!(rows.contains("finance-mcp,phx-session-7,4,2025-07-02T09:00:01.500Z,tool_result,00f067aa0ba902b8,revenue,,\"{\"\"usd\"\":4120000.5}\",false,,fin.analyst.05"), "{rows}");
    assert!(
        rows.ends_with("claude-sonnet-4,1100,20,EMEA revenue in Q2 2025 was $4.12M.\n"),
        "{rows}"
    );
}

#[test]
fn mcp_logs_give_steps_and_a_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ok(
        &root(),
        &[
            "import",
            "mcp-log",
            "tests/fixtures/import/mcp-log.jsonl",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert!(
        out.contains("12 record(s) -> 7 step(s) in 1 trace(s)"),
        "{out}"
    );
    assert!(
        out.contains("2 tool definition(s) from tools/list"),
        "{out}"
    );
    assert!(
        out.contains("lacking: requests with no response (the log ends first): 1\n"),
        "{out}"
    );
    let rows = steps(tmp.path(), "mcp-log.parquet");
    assert!(rows.contains("tickets-mcp,conv-refunds,4,2025-07-02T10:00:02.300Z,tool_result,b,open_tickets,,\"{\"\"count\"\":7}\",false,2025-07-02T09:55:00Z,support.lead.01"), "{rows}");
    assert!(rows.contains(",tool_result,4,open_tickets,,\"{\"\"error\"\":{\"\"code\"\":-32602,\"\"message\"\":\"\"account not found\"\"}}\",true,"), "{rows}");
    assert!(rows.ends_with("tickets-mcp,conv-refunds,7,2025-07-02T10:00:04Z,tool_call,5,search_tickets,\"{\"\"search_query\"\":\"\"refund\"\"}\",,,,support.lead.01,,,,,\n"), "{rows}");
    // The logged tools/list is a snapshot drift can compare: the agent called
    // search_tickets with 'query', which that schema does not accept.
    let snaps = tmp.path().join("snapshots/mcp-log.parquet");
    let traces = tmp.path().join("traces/mcp-log.parquet");
    let rows = sql_csv(
        tmp.path(),
        &[("tool_snapshots", &snaps), ("steps", &traces)],
        "SELECT call_id, tool, argument_violations FROM call_checks ORDER BY call_id",
    );
    assert_eq!(
        rows,
        "call_id,tool,argument_violations\n\
         2,search_tickets,\"[\"\"Schema mismatch: expected parameter 'search_query', found 'query'\"\",\"\"Schema mismatch: missing required parameter 'search_query'\"\"]\"\n\
         4,open_tickets,[]\n5,search_tickets,[]\nb,open_tickets,[]\n"
    );
}

#[test]
fn truncated_files_are_named_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(
        &root(),
        &[
            "import",
            "otlp",
            "tests/fixtures/import/truncated.json",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("tests/fixtures/import/truncated.json:"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("(truncated?)"), "{}", r.stderr);
    assert!(!tmp.path().join("traces").exists());
    let r = run(
        &root(),
        &[
            "import",
            "otlp",
            "tests/fixtures/import/phoenix.jsonl",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("phoenix.jsonl:1:1: not an OTLP export (\"resourceSpans\")"),
        "{}",
        r.stderr
    );
}

#[test]
fn label_reads_otlp_directly() {
    let tmp = tempfile::tempdir().unwrap();
    let d = demo();
    let r = run(
        &root(),
        &[
            "label",
            "--data",
            d.to_str().unwrap(),
            "--traces-from",
            "otlp=tests/fixtures/import/otlp-genai.json",
            "--out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("note: --traces-from lacks as_of on tool results: 2"),
        "{}",
        r.stderr
    );
    // The imported conversation is scored against the demo's gold: right number (7),
    // not grounded (no as_of to prove freshness).
    let labels = std::fs::read_to_string(tmp.path().join("labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 1, "{labels}");
    let l: serde_json::Value = serde_json::from_str(labels.lines().next().unwrap()).unwrap();
    assert_eq!(
        (
            l["server"].as_str(),
            l["case_id"].as_str(),
            l["correct"].as_bool(),
            l["grounded"].as_bool()
        ),
        (
            Some("support-mcp"),
            Some("acme-open-tickets-003"),
            Some(true),
            Some(false)
        )
    );
}
