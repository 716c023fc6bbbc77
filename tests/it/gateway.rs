//! `groundcheck gateway` and `groundcheck run` against real MCP servers: server-everything
//! from npm (stdio and streamable HTTP) and a small flaky server (tests/fixtures/gateway).
//! The test is the agent: it writes JSON-RPC lines to the gateway and reads its answers.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::drift::{everything, everything_http};
use crate::support::{root, run, sql_csv};

/// Bound on any one wait, so a broken gateway fails the test instead of hanging it.
const WAIT: Duration = Duration::from_secs(60);

struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    /// Everything read so far, in order.
    seen: Vec<Value>,
}

impl Agent {
    fn start(out: &Path, args: &[&str]) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
            .arg("gateway")
            .args(["--out", out.to_str().unwrap(), "--trace-id", "t1"])
            .args(["--as-user", "fin.analyst.02", "--user-role", "analyst"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the gateway");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("the gateway wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Agent {
            stdin: child.stdin.take(),
            child,
            rx,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    /// Reads until the response to `id`.
    fn response(&mut self, id: i64) -> Value {
        loop {
            let v = self
                .rx
                .recv_timeout(WAIT)
                .expect("an answer from the gateway");
            self.seen.push(v.clone());
            if v.get("method").is_none() && v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
    }

    fn init(&mut self, capabilities: Value) -> Value {
        let r = self.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": capabilities,
                   "clientInfo": {"name": "test-agent", "version": "1"}}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// Closes stdin and waits for the gateway to finish its records (exit 0).
    fn close(self) -> Vec<Value> {
        self.close_with(0)
    }

    /// Closes stdin; the gateway must exit with `code` (1: tools were blocked or disabled).
    fn close_with(mut self, code: i32) -> Vec<Value> {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "gateway exited with {status}");
        self.seen.extend(self.rx.try_iter());
        self.seen
    }
}

/// Every line `r` gives, as text on a channel, read on a thread of its own so that a
/// wait on it can time out.
fn line_channel(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Writes one message line, as given, and flushes it.
fn say_line(stdin: &mut ChildStdin, line: &str) {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
}

fn text(result: &Value) -> String {
    result
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn server_args() -> Vec<String> {
    let mut v = vec!["--".to_string()];
    v.extend(everything().split(' ').map(str::to_string));
    v
}

fn start(out: &Path, extra: &[&str]) -> Agent {
    let server = server_args();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(server.iter().map(String::as_str));
    Agent::start(out, &args)
}

#[test]
fn gateway_passes_messages_through_in_order_and_records_every_call() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut a = start(&out, &[]);
    let init = a.init(json!({"sampling": {}}));
    assert_eq!(
        init["result"]["serverInfo"]["name"],
        "mcp-servers/everything"
    );
    let list = a.request(1, "tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"get-sum") && names.contains(&"echo"),
        "{names:?}"
    );

    // Progress notifications pass through, in order, before the answer.
    let r = a.request(
        2,
        "tools/call",
        json!({"name": "trigger-long-running-operation", "arguments": {"duration": 0.3, "steps": 3},
               "_meta": {"progressToken": "p-1"}}),
    );
    assert!(
        text(&r).starts_with("Long running operation completed"),
        "{r}"
    );
    let progress: Vec<i64> = a
        .seen
        .iter()
        .filter(|m| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p-1"
        })
        .map(|m| m["params"]["progress"].as_i64().unwrap())
        .collect();
    assert_eq!(progress, vec![1, 2, 3]);

    // A server-to-client request (sampling) reaches the agent, and its answer the server.
    a.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                  "params": {"name": "trigger-sampling-request", "arguments": {"prompt": "hi", "maxTokens": 5}}}));
    let sampling = loop {
        let v = a.rx.recv_timeout(WAIT).expect("the sampling request");
        a.seen.push(v.clone());
        if v["method"] == "sampling/createMessage" {
            break v;
        }
    };
    a.send(json!({"jsonrpc": "2.0", "id": sampling["id"], "result": {
        "role": "assistant", "model": "test-model",
        "content": {"type": "text", "text": "sampled by the test agent"}}}));
    let r = a.response(3);
    assert!(r.to_string().contains("sampled by the test agent"), "{r}");

    // A burst of concurrent calls: every one answered, each with its own result.
    for i in 0..20 {
        a.send(
            json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                      "params": {"name": "get-sum", "arguments": {"a": i, "b": 1000}}}),
        );
    }
    for i in 0..20 {
        let r = a.response(100 + i);
        assert_eq!(
            text(&r),
            format!("The sum of {i} and 1000 is {}.", i + 1000)
        );
    }
    let seen = a.close();

    // The message log holds what the agent received, in the same order, unchanged.
    let log = lines(&out.join("gateway/t1.messages.jsonl"));
    let to_agent: Vec<&Value> = log
        .iter()
        .filter(|l| l["direction"] == "server->client")
        .map(|l| &l["message"])
        .collect();
    assert_eq!(to_agent.len(), seen.len());
    for (logged, got) in to_agent.iter().zip(&seen) {
        assert_eq!(*logged, got);
    }
    let sent: Vec<&Value> = log
        .iter()
        .filter(|l| l["direction"] == "client->server" && l["message"]["method"] == "tools/call")
        .map(|l| &l["message"]["id"])
        .collect();
    assert_eq!(sent.len(), 22, "every tools/call reached the server once");

    // Steps: every call paired with its result, for the configured user; Parquet equals
    // the JSONL.
    let steps = out.join("gateway/t1.steps.jsonl");
    let csv = sql_csv(
        &root(),
        &[("steps", &steps)],
        "SELECT kind, count(*) AS n, count(DISTINCT call_id) AS ids, min(as_user) AS u, \
         min(user_role) AS r, min(server) AS s FROM steps GROUP BY kind ORDER BY kind",
    );
    assert_eq!(
        csv,
        "kind,n,ids,u,r,s\n\
         tool_call,22,22,fin.analyst.02,analyst,mcp-servers/everything\n\
         tool_result,22,22,fin.analyst.02,analyst,mcp-servers/everything\n"
    );
    let parquet = out.join("traces/t1.parquet");
    let q =
        "SELECT step, kind, call_id, tool, arguments, result, is_error FROM steps ORDER BY step";
    assert_eq!(
        sql_csv(&root(), &[("steps", &parquet)], q),
        sql_csv(&root(), &[("steps", &steps)], q)
    );
    let sum = sql_csv(
        &root(),
        &[("steps", &parquet)],
        "SELECT s.result FROM steps c JOIN steps s ON s.call_id = c.call_id AND s.kind = 'tool_result' \
         WHERE c.kind = 'tool_call' AND c.arguments LIKE '%\"a\":7%'",
    );
    // A text result is stored as JSON text, as `ingest` stores it.
    assert_eq!(sum, "result\n\"\"\"The sum of 7 and 1000 is 1007.\"\"\"\n");
}

#[test]
fn gateway_refuses_mismatched_calls_allows_one_retry_then_disables() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut a = start(&out, &[]);
    a.init(json!({}));
    let r = a.call(1, "echo", json!({"msg": "hi"}));
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(
        text(&r),
        "Schema mismatch: expected parameter 'message', found 'msg'. Tool blocked. One retry \
         allowed: call 'echo' again with arguments that match its current inputSchema."
    );
    let r = a.call(2, "echo", json!({"text": "hi"}));
    assert_eq!(
        text(&r),
        "Schema mismatch: expected parameter 'message', found 'text'. Tool blocked. That was the \
         retry: 'echo' is now disabled for this session."
    );
    // The client is told (list_changed right after the refusal) and no longer sees it.
    let r = a.request(20, "tools/list", json!({}));
    let told = a
        .seen
        .iter()
        .rposition(|m| m["method"] == "notifications/tools/list_changed");
    let answered = a
        .seen
        .iter()
        .position(|m| m["id"] == 2 && m.get("method").is_none());
    let order: Vec<String> = a
        .seen
        .iter()
        .map(|m| format!("{}/{}", m["id"], m["method"]))
        .collect();
    assert!(told.is_some() && told > answered, "{order:?}");
    let listed: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        !listed.contains(&"echo") && listed.contains(&"get-sum"),
        "{listed:?}"
    );
    // Disabled: a good call is refused too, and never reaches the server.
    let r = a.call(3, "echo", json!({"message": "hi"}));
    assert!(
        text(&r).starts_with("Tool 'echo' is disabled for this session"),
        "{r}"
    );
    // A good call between two mismatches resets the count.
    assert_eq!(
        a.call(4, "get-sum", json!({"a": 1})),
        a.seen.last().unwrap().clone()
    );
    assert!(text(&a.call(5, "get-sum", json!({"a": 1, "b": 2}))).contains("is 3"));
    let r = a.call(6, "get-sum", json!({"a": "one", "b": 2}));
    assert!(text(&r).contains("One retry allowed"), "{r}");
    let r = a.call(7, "no-such-tool", json!({}));
    assert!(
        text(&r).starts_with("Schema mismatch: tool 'no-such-tool' is not offered"),
        "{r}"
    );
    // Exit 1: the session ended with a tool disabled.
    a.close_with(1);

    let log = lines(&out.join("gateway/t1.messages.jsonl"));
    let calls = |refused: bool| -> Vec<i64> {
        log.iter()
            .filter(|l| {
                l["direction"] == "client->server" && l["message"]["method"] == "tools/call"
            })
            .filter(|l| l["message"].get("_groundcheck").is_some() == refused)
            .map(|l| l["message"]["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(
        calls(false),
        vec![5],
        "only the valid get-sum call reached the server"
    );
    // The refused ones are in the log too, marked: nothing the agent sent is missing.
    assert_eq!(calls(true), vec![1, 2, 3, 4, 6, 7]);
    let events = lines(&out.join("gateway/t1.events.jsonl"));
    let disabled: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "tool_disabled")
        .collect();
    assert_eq!(disabled.len(), 1);
    assert_eq!(disabled[0]["tool"], "echo");
    let refused = events.iter().filter(|e| e["event"] == "refused").count();
    assert_eq!(refused, 6);
    // The refusals are in the trace as the model saw them: error results.
    let csv = sql_csv(
        &root(),
        &[("steps", &out.join("traces/t1.parquet"))],
        "SELECT call_id, tool, is_error FROM steps WHERE kind = 'tool_result' ORDER BY step",
    );
    assert_eq!(
        csv,
        "call_id,tool,is_error\n1,echo,true\n2,echo,true\n3,echo,true\n4,get-sum,true\n\
         5,get-sum,false\n6,get-sum,true\n7,no-such-tool,true\n"
    );
}

/// A stored snapshot of the live server in which get-sum's `a` is still called `augend`
/// (what the agent was built against).
fn pin_with_renamed_param(dir: &Path) -> PathBuf {
    let server = everything();
    let mut args = vec![
        "snapshot",
        "--jsonl",
        "--captured-at",
        "2026-11-01T00:00:00Z",
        "--out",
    ];
    let out = dir.join("pin");
    args.push(out.to_str().unwrap());
    args.push("--");
    args.extend(server.split(' '));
    let r = run(&root(), &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let file = out.join("snapshots/mcp-servers_everything/2026-11-01T000000Z.jsonl");
    let rows: Vec<String> = lines(&file)
        .into_iter()
        .map(|mut row| {
            if row["tool"] == "get-sum" {
                let s = &mut row["input_schema"];
                let a = s["properties"]["a"].take();
                s["properties"].as_object_mut().unwrap().remove("a");
                s["properties"]["augend"] = a;
                s["required"] = json!(["augend", "b"]);
            }
            row.to_string()
        })
        .collect();
    std::fs::write(&file, rows.join("\n") + "\n").unwrap();
    file
}

#[test]
fn gateway_blocks_tools_that_drifted_from_the_pin() {
    let tmp = tempfile::tempdir().unwrap();
    let pin = pin_with_renamed_param(tmp.path());
    let out = tmp.path().join("out");
    let mut a = start(&out, &["--pin", pin.to_str().unwrap()]);
    a.init(json!({}));
    let r = a.call(1, "get-sum", json!({"a": 1, "b": 2}));
    assert_eq!(r["result"]["isError"], true);
    let t = text(&r);
    assert!(
        t.starts_with("Tool 'get-sum' changed since the pinned snapshot:") && t.contains("augend"),
        "{t}"
    );
    assert!(
        t.ends_with("Tool blocked until the change is confirmed."),
        "{t}"
    );
    assert_eq!(
        text(&a.call(2, "echo", json!({"message": "hi"}))),
        "Echo: hi"
    );
    let list = a.request(3, "tools/list", json!({}));
    assert!(
        list.to_string().contains("\"get-sum\""),
        "--on-block error keeps it listed"
    );
    // Exit 1: the session ended with a tool blocked.
    a.close_with(1);
    let events = lines(&out.join("gateway/t1.events.jsonl"));
    let drift = events
        .iter()
        .find(|e| e["event"] == "drift")
        .expect("a drift event");
    assert_eq!(drift["blocked"], json!(["get-sum"]));

    // --on-block hide: left out of tools/list, and still refused when called.
    let out = tmp.path().join("hidden");
    let mut a = start(
        &out,
        &["--pin", pin.to_str().unwrap(), "--on-block", "hide"],
    );
    a.init(json!({}));
    let list = a.request(1, "tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"get-sum") && names.contains(&"echo"),
        "{names:?}"
    );
    assert_eq!(
        a.call(2, "get-sum", json!({"a": 1, "b": 2}))["result"]["isError"],
        true
    );
    a.close_with(1);
}

fn flaky(out: &Path, extra: &[&str]) -> Agent {
    let script = root().join("tests/fixtures/gateway/flaky_server.py");
    let mut args = vec!["--call-timeout", "1"];
    args.extend(extra);
    args.extend(["--", "python3", script.to_str().unwrap()]);
    Agent::start(out, &args)
}

#[test]
fn gateway_answers_for_a_server_that_hangs_or_dies_and_keeps_the_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut a = flaky(&out, &[]);
    a.init(json!({}));
    assert_eq!(text(&a.call(1, "ok", json!({}))), "fine");
    let r = a.call(2, "hang", json!({}));
    assert_eq!(r["error"]["code"], -32001);
    assert_eq!(
        r["error"]["message"],
        "groundcheck gateway: the MCP server did not answer tools/call hang within 1s; the \
         request was cancelled"
    );
    let r = a.call(3, "crash", json!({}));
    assert_eq!(r["error"]["code"], -32000);
    assert_eq!(
        r["error"]["message"],
        "groundcheck gateway: the server exited with status 3 (closed its stdout) before \
         answering tools/call"
    );
    let r = a.call(4, "ok", json!({}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("; tools/call was not sent"),
        "{r}"
    );
    // The gateway is killed hard: the steps written so far are all there, line by line.
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    assert!(!out.join("traces/t1.parquet").exists());
    let steps = lines(&out.join("gateway/t1.steps.jsonl"));
    let summary: Vec<String> = steps
        .iter()
        .map(|s| {
            format!(
                "{} {} {}",
                s["kind"].as_str().unwrap(),
                s["tool"].as_str().unwrap(),
                s["is_error"]
                    .as_bool()
                    .map(|b| b.to_string())
                    .unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "tool_call ok ",
            "tool_result ok false",
            "tool_call hang ",
            "tool_result hang true",
            "tool_call crash ",
            "tool_result crash true",
            "tool_call ok ",
            "tool_result ok true"
        ]
    );
    assert_eq!(
        steps[1]["as_of"], "2026-11-01T00:00:00Z",
        "as_of from the result's _meta"
    );
    assert_eq!(steps[1]["server"], "flaky");
    let events = lines(&out.join("gateway/t1.events.jsonl"));
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["started", "timeout", "upstream_closed"]);
}

#[test]
fn sigterm_ends_the_session_like_a_closed_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut a = flaky(&out, &[]);
    a.init(json!({}));
    assert_eq!(text(&a.call(1, "ok", json!({}))), "fine");
    let pid = a.child.id().to_string();
    let killed = Command::new("kill")
        .args(["-s", "TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = a.child.wait().unwrap();
    assert!(status.success(), "{status}");
    let csv = sql_csv(
        &root(),
        &[("steps", &out.join("traces/t1.parquet"))],
        "SELECT kind, tool, as_of FROM steps ORDER BY step",
    );
    assert_eq!(
        csv,
        "kind,tool,as_of\ntool_call,ok,\ntool_result,ok,2026-11-01T00:00:00Z\n"
    );
}

#[test]
fn gateway_over_a_streamable_http_upstream() {
    let (_server, url) = everything_http();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut a = Agent::start(&out, &["--upstream", &url]);
    a.init(json!({}));
    assert_eq!(
        text(&a.call(1, "get-sum", json!({"a": 2, "b": 3}))),
        "The sum of 2 and 3 is 5."
    );
    assert!(text(&a.call(2, "get-sum", json!({"x": 2, "b": 3}))).starts_with("Schema mismatch"));
    a.close();
    let steps = lines(&out.join("gateway/t1.steps.jsonl"));
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[1]["result"], "The sum of 2 and 3 is 5.");
}

#[test]
fn run_drives_a_scripted_agent_through_the_gateway() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let cases = dir.join("cases.jsonl");
    std::fs::write(
        &cases,
        [
            json!({"case_id": "sum-1", "question": "What is 2 plus 3?", "as_user": "fin.analyst.02",
                   "user_role": "analyst", "gold": {"answer": 5, "tolerance": 0,
                   "required_fields": ["get-sum.a", "get-sum.b"], "forbidden_fields": []}}),
            json!({"case_id": "retry-1", "question": "Say hi", "as_user": "ops.01", "user_role": "ops",
                   "gold": {"answer": "Echo: hi", "required_fields": ["echo.message"], "forbidden_fields": []}}),
            json!({"case_id": "burst-1", "question": "Add ten pairs", "as_user": "ops.01",
                   "user_role": "ops", "gold": {"answer": "done", "required_fields": [], "forbidden_fields": []}}),
        ]
        .map(|v| v.to_string())
        .join("\n"),
    )
    .unwrap();
    let burst: Vec<Value> = (0..10)
        .map(|i| json!({"call": "get-sum", "arguments": {"a": i, "b": 1}}))
        .collect();
    let plan = dir.join("plan.json");
    std::fs::write(
        &plan,
        json!({
            "sum-1": [{"call": "get-sum", "arguments": {"a": 2, "b": 3}}, {"answer_from_last": true}],
            "retry-1": [{"call": "echo", "arguments": {"msg": "hi"}},
                        {"call": "echo", "arguments": {"message": "hi"}}, {"answer_from_last": true}],
            "burst-1": [{"burst": burst}, {"answer": "done"}],
        })
        .to_string(),
    )
    .unwrap();
    let agent = format!(
        "python3 {} {}",
        root()
            .join("tests/fixtures/gateway/scripted_agent.py")
            .display(),
        plan.display()
    );
    let out = dir.join("out");
    let mut args = vec![
        "run",
        "--cases",
        cases.to_str().unwrap(),
        "--agent",
        &agent,
        "--run-id",
        "r1",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--",
    ];
    let server = everything();
    args.extend(server.split(' '));
    let r = run(dir, &args);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("3 case(s), 0 failed, 35 step(s)"),
        "{}",
        r.stdout
    );

    let traces = out.join("traces");
    let csv = sql_csv(
        &root(),
        &[("steps", &traces)],
        // The burst's results may come back while later calls of it are still going
        // out, so tool steps are counted here and their order checked per call below.
        "SELECT case_id, \
         string_agg(kind, ' ' ORDER BY step) FILTER (WHERE kind NOT IN ('tool_call', 'tool_result')) AS turns, \
         count(*) FILTER (WHERE kind = 'tool_call') AS call_steps, \
         count(*) FILTER (WHERE kind = 'tool_result') AS result_steps, \
         count(*) FILTER (WHERE kind = 'tool_result' AND is_error) AS refused, \
         count(DISTINCT call_id) AS calls, min(as_user) AS u, max(run_id) AS run \
         FROM steps GROUP BY case_id ORDER BY case_id",
    );
    assert_eq!(
        csv,
        "case_id,turns,call_steps,result_steps,refused,calls,u,run\n\
         burst-1,user reasoning answer,10,10,0,10,ops.01,r1\n\
         retry-1,user reasoning answer,2,2,1,2,ops.01,r1\n\
         sum-1,user reasoning answer,1,1,0,1,fin.analyst.02,r1\n"
    );
    // Every call has one result, recorded after it and before the answer.
    let order = sql_csv(
        &root(),
        &[("steps", &traces)],
        "SELECT count(*) AS n FROM steps c \
         JOIN steps r ON r.trace_id = c.trace_id AND r.call_id = c.call_id AND r.kind = 'tool_result' \
         JOIN steps a ON a.trace_id = c.trace_id AND a.kind = 'answer' \
         WHERE c.kind = 'tool_call' AND c.step < r.step AND r.step < a.step",
    );
    assert_eq!(order, "n\n13\n");
    let answers = sql_csv(
        &root(),
        &[("steps", &traces)],
        "SELECT case_id, text, model, input_tokens, output_tokens FROM steps WHERE kind = 'answer' ORDER BY case_id",
    );
    assert_eq!(
        answers,
        "case_id,text,model,input_tokens,output_tokens\n\
         burst-1,done,scripted,1100,10\n\
         retry-1,Echo: hi,scripted,300,10\n\
         sum-1,The sum of 2 and 3 is 5.,scripted,200,10\n"
    );
    // Ready for label: the recorded traces score against the cases' gold.
    let labels = dir.join("labels");
    let r = run(
        dir,
        &[
            "label",
            "--data",
            root().join("datasets/demo").to_str().unwrap(),
            "--table",
            &format!("cases={}", cases.display()),
            "--table",
            &format!("steps={}", traces.display()),
            "--out",
            labels.to_str().unwrap(),
            "-q",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let labeled = std::fs::read_to_string(labels.join("labels.jsonl")).unwrap();
    assert_eq!(labeled.lines().count(), 3);
    for l in labeled.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["correct"], true, "{l}");
    }
}

#[test]
fn run_reports_agents_that_fail_or_time_out() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let cases = dir.join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"case_id\": \"fails\", \"question\": \"q\"}\n{\"case_id\": \"slow\", \"question\": \"q\"}\n",
    )
    .unwrap();
    let plan = dir.join("plan.json");
    std::fs::write(
        &plan,
        json!({"fails": [{"call": "ok"}, {"exit": 2}], "slow": [{"sleep": 120}]}).to_string(),
    )
    .unwrap();
    let agent = format!(
        "python3 {} {}",
        root()
            .join("tests/fixtures/gateway/scripted_agent.py")
            .display(),
        plan.display()
    );
    let flaky = root().join("tests/fixtures/gateway/flaky_server.py");
    let out = dir.join("out");
    let r = run(
        dir,
        &[
            "run",
            "--cases",
            cases.to_str().unwrap(),
            "--agent",
            &agent,
            "--run-id",
            "r2",
            "--case-timeout",
            "5",
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--",
            "python3",
            flaky.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let summary = std::fs::read_to_string(out.join("run/r2/summary.jsonl")).unwrap();
    let status: Vec<(String, String)> = summary
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                v["case_id"].as_str().unwrap().into(),
                v["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        status,
        [
            ("fails".to_string(), "agent failed (exit 2)".to_string()),
            ("slow".to_string(), "timed out after 5s".to_string())
        ]
    );
    // The failed agent's tool call is kept; no answer step is invented.
    let csv = sql_csv(
        &root(),
        &[("steps", &out.join("traces"))],
        "SELECT case_id, string_agg(kind, ' ' ORDER BY step) AS kinds FROM steps GROUP BY case_id ORDER BY case_id",
    );
    assert_eq!(
        csv,
        "case_id,kinds\nfails,user tool_call tool_result\nslow,user\n"
    );
}

/// A raw HTTP/1.1 POST (`Connection: close`): the response's head and body, the body
/// de-chunked. The test needs the bytes, so no client library parses them first.
fn raw_post(url: &str, headers: &[(&str, &str)], body: &str) -> (String, String) {
    use std::io::Read;
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (addr, path) = rest.split_once('/').map_or((rest, "/"), |(a, p)| (a, p));
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    let mut head = format!(
        "POST /{} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        path.trim_start_matches('/'),
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut r = Vec::new();
    let _ = s.read_to_end(&mut r);
    let r = String::from_utf8(r).expect("a UTF-8 response");
    let (head, body) = r.split_once("\r\n\r\n").expect("an HTTP response");
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return (head.to_string(), body.to_string());
    }
    let (mut out, mut rest) = (String::new(), body);
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    (head.to_string(), out)
}

/// Issue #45: what the agent and the server write reaches the other side as they wrote
/// it, over the stdio face and the HTTP face: key order, a 30-digit integer, `1E+2`, a
/// tab, escapes and non-ASCII, both ways; a batch's messages each keep their bytes; a
/// pretty-printed HTTP body loses only its line breaks on the way to a stdio server
/// (stdio framing); a message that is not JSON-RPC 2.0 is refused on both faces.
#[test]
fn gateway_passes_bytes_through_unchanged_both_ways_on_both_faces() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let script = root().join("tests/fixtures/gateway/bytes_server.py");
    // What bytes_server.py answers to tools/call, byte for byte.
    let result = "{\"structuredContent\" : {\"z\": 1E+2, \"big\": 123456789012345678901234567890,\t\"name\": \"Zo\\u00eb \u{dc}n\u{ef}code \u{2713}\", \"a\": [1.50, -0.0]},  \"content\":[{\"type\":\"text\",\"text\":\"{\\\"z\\\": 1E+2}\"}], \"isError\":false }";
    let answer =
        |id: &str| format!("{{\"result\": {result},   \"jsonrpc\":\"2.0\", \"id\": {id}}}");
    let call = |id: &str| {
        format!(
            "{{\"method\":\"tools/call\",  \"jsonrpc\":\"2.0\",\"id\":{id},\"params\":{{\"name\":\"echo\",\"arguments\":{{\"b\":1E+2,\t\"a\":123456789012345678901234567890,\"s\":\"caf\\u00e9 \u{2615}\"}}}}}}"
        )
    };
    let init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bytes-agent\",\"version\":\"1\"}}}";
    let initialized = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    // The stdio face.
    let got = d.join("stdio-server-got.txt");
    let mut gw = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args([
            "gateway",
            "--trace-id",
            "b1",
            "--call-timeout",
            "30",
            "--out",
        ])
        .arg(d.join("o1"))
        .args(["--", "python3"])
        .arg(&script)
        .arg(&got)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let rx = line_channel(gw.stdout.take().unwrap());
    let mut stdin = gw.stdin.take().unwrap();
    let mut say = |line: &str| say_line(&mut stdin, line);
    let until = |rx: &Receiver<String>, id: &str| loop {
        let l = rx.recv_timeout(WAIT).expect("an answer from the gateway");
        if l.ends_with(&format!("\"id\": {id}}}")) || l.contains(&format!("\"id\":{id}")) {
            return l;
        }
    };
    say(init);
    until(&rx, "0");
    say(initialized);
    say(&call("7"));
    assert_eq!(
        until(&rx, "7"),
        answer("7"),
        "the server's answer, as it wrote it"
    );
    say(
        "[ {\"id\":8, \"jsonrpc\":\"2.0\",\"method\":\"ping\"} ,{\"method\":\"ping\",\"id\":\"nine\",\"jsonrpc\":\"2.0\"}]",
    );
    assert_eq!(
        until(&rx, "8"),
        "{\"result\": {},   \"jsonrpc\":\"2.0\", \"id\": 8}"
    );
    until(&rx, "\"nine\"");
    say("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}");
    let refused: Value = serde_json::from_str(&until(&rx, "5")).unwrap();
    assert_eq!(refused["error"]["code"], json!(-32600), "{refused}");
    say("[]");
    let empty: Value = serde_json::from_str(&until(&rx, "null")).unwrap();
    assert_eq!(empty["error"]["code"], json!(-32600), "{empty}");
    drop(stdin);
    assert!(gw.wait().unwrap().success());
    let seen = std::fs::read_to_string(&got).unwrap();
    assert!(seen.contains(&format!("{}\n", call("7"))), "{seen}");
    assert!(seen.contains("\n{\"id\":8, \"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"method\":\"ping\",\"id\":\"nine\",\"jsonrpc\":\"2.0\"}\n"), "{seen}");
    assert!(!seen.contains("\"1.0\""), "{seen}");
    // The message log holds the bytes sent, both ways.
    let log = std::fs::read_to_string(d.join("o1/gateway/b1.messages.jsonl")).unwrap();
    assert!(
        log.contains(&format!("\"message\":{}}}", call("7"))),
        "{log}"
    );
    assert!(
        log.contains(&format!("\"message\":{}}}", answer("7"))),
        "{log}"
    );

    // The HTTP face: JSON answers, a session, a pretty-printed body.
    let got = d.join("http-server-got.txt");
    let server = vec![
        "python3".to_string(),
        script.display().to_string(),
        got.display().to_string(),
    ];
    let face = crate::producers::Listening::start(
        &d.join("o2"),
        &["--trace-id", "b2", "--call-timeout", "30"],
        &server,
        &[],
    );
    let accept = ("Accept", "application/json");
    let (head, body) = raw_post(&face.url, &[accept], init);
    let sid = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l.split_once(':').unwrap().1.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {head}\n{body}"));
    let session = ("Mcp-Session-Id", sid.as_str());
    raw_post(&face.url, &[accept, session], initialized);
    let (_, body) = raw_post(&face.url, &[accept, session], &call("11"));
    assert_eq!(body, answer("11"));
    let pretty = call("12").replace(",\"params\"", ",\n  \"params\"");
    let (_, body) = raw_post(&face.url, &[accept, session], &pretty);
    assert_eq!(body, answer("12"));
    let (_, body) = raw_post(
        &face.url,
        &[accept, session],
        "[{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}, {\"id\":14,\"method\":\"ping\",\"jsonrpc\":\"2.0\"}]",
    );
    assert_eq!(
        body,
        "[{\"result\": {},   \"jsonrpc\":\"2.0\", \"id\": 13},{\"result\": {},   \"jsonrpc\":\"2.0\", \"id\": 14}]"
    );
    let (head, _) = raw_post(
        &face.url,
        &[accept, session],
        "{\"jsonrpc\":\"1.0\",\"id\":15,\"method\":\"ping\"}",
    );
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    let (code, err) = face.stop();
    assert_eq!(code, 0, "{err}");
    let seen = std::fs::read_to_string(&got).unwrap();
    assert!(seen.contains(&format!("{}\n", call("11"))), "{seen}");
    // The pretty-printed body, its line breaks dropped and nothing else.
    assert!(
        seen.contains(&format!("{}\n", pretty.replace('\n', ""))),
        "{seen}"
    );
    assert!(!seen.contains("\"1.0\""), "{seen}");

    // A streamable-HTTP upstream: the same server speaking HTTP behind the stdio face. Its
    // SSE answer to tools/call and its JSON answers reach the agent as it wrote them, the
    // agent's call reaches it as the agent wrote it, with the session and version headers.
    let got = d.join("http-upstream-got.txt");
    let mut server = Command::new("python3")
        .arg(&script)
        .arg(&got)
        .arg("--http")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port = first.trim().strip_prefix("listening ").expect("a port");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut gw = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args([
            "gateway",
            "--trace-id",
            "b3",
            "--call-timeout",
            "30",
            "--out",
        ])
        .arg(d.join("o3"))
        .args(["--upstream", &url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let rx = line_channel(gw.stdout.take().unwrap());
    let mut stdin = gw.stdin.take().unwrap();
    let mut say = |line: &str| say_line(&mut stdin, line);
    say(init);
    until(&rx, "0");
    say(initialized);
    say(&call("21"));
    assert_eq!(until(&rx, "21"), answer("21"), "an SSE answer, as written");
    say(
        "[{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\"}, {\"id\":23,\"method\":\"ping\",\"jsonrpc\":\"2.0\"}]",
    );
    // Requests go to an HTTP upstream concurrently: the two answers may come in either order.
    let mut pings: Vec<String> = (0..2)
        .map(|_| rx.recv_timeout(WAIT).expect("an answer from the gateway"))
        .collect();
    pings.sort();
    assert_eq!(
        pings,
        [
            "{\"result\": {},   \"jsonrpc\":\"2.0\", \"id\": 22}",
            "{\"result\": {},   \"jsonrpc\":\"2.0\", \"id\": 23}"
        ]
    );
    drop(stdin);
    assert!(gw.wait().unwrap().success());
    let _ = server.kill();
    let _ = server.wait();
    let seen = std::fs::read_to_string(&got).unwrap();
    assert!(
        seen.contains(&format!(
            "{}\n# session=bytes-1 version=2025-06-18 method=None name=None\n",
            call("21")
        )),
        "{seen}"
    );
    assert!(seen.contains("# DELETE session=bytes-1\n"), "{seen}");
    let log = std::fs::read_to_string(d.join("o3/gateway/b3.messages.jsonl")).unwrap();
    assert!(
        log.contains(&format!("\"message\":{}}}", answer("21"))),
        "{log}"
    );
}

/// Issue #45: on the HTTP face, sessionless (2026-07-28) agents are kept apart: agent A's
/// two stale calls disable the tool for A only; agent B's calls, valid and stale, are
/// judged on B's own count. Agents are told apart by the client info of their envelope
/// (and by the `Groundcheck-Agent` header); `--shared-stateless` puts them in one
/// session, where A's strikes disable the tool for B too.
#[test]
fn gateway_keeps_sessionless_agents_apart_unless_told_to_share() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let script = root().join("tests/fixtures/gateway/flaky_server.py");
    let server = vec!["python3".to_string(), script.display().to_string()];
    let call = |face: &crate::producers::Listening, agent: &str, id: u32, args: Value| -> String {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "ok", "arguments": args, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": agent, "version": "1.0"},
                "io.modelcontextprotocol/clientCapabilities": {}}}});
        let (head, body) = raw_post(
            &face.url,
            &[
                ("Accept", "application/json"),
                ("MCP-Protocol-Version", "2026-07-28"),
            ],
            &body.to_string(),
        );
        assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["id"], json!(id), "{v}");
        text(&v)
    };
    let stale = || json!({"bogus": 1});
    for shared in [false, true] {
        let out = d.join(if shared { "shared" } else { "apart" });
        let mut args = vec!["--call-timeout", "30", "--trace-id", "iso"];
        if shared {
            args.push("--shared-stateless");
        }
        let face = crate::producers::Listening::start(&out, &args, &server, &[]);
        let a1 = call(&face, "agent-a", 1, stale());
        assert!(a1.starts_with("Schema mismatch"), "{a1}");
        let a2 = call(&face, "agent-a", 2, stale());
        assert!(a2.contains("is now disabled for this session"), "{a2}");
        let b1 = call(&face, "agent-b", 1, json!({}));
        let b2 = call(&face, "agent-b", 2, stale());
        let a3 = call(&face, "agent-a", 3, json!({}));
        assert!(a3.contains("is disabled for this session"), "{a3}");
        // A sessionless agent learns it from its next tools/list too: the disabled tool
        // is gone from A's list (and from B's only when they share).
        let list = |agent: &str| -> Vec<String> {
            let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list",
                "params": {"_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": agent, "version": "1.0"},
                    "io.modelcontextprotocol/clientCapabilities": {}}}});
            let (_, body) = raw_post(
                &face.url,
                &[
                    ("Accept", "application/json"),
                    ("MCP-Protocol-Version", "2026-07-28"),
                ],
                &body.to_string(),
            );
            let v: Value = serde_json::from_str(&body).unwrap();
            v["result"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("{v}"))
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert!(!list("agent-a").contains(&"ok".to_string()));
        assert_eq!(list("agent-b").contains(&"ok".to_string()), !shared);
        if shared {
            assert!(b1.contains("is disabled for this session"), "{b1}");
        } else {
            assert_eq!(b1, "fine");
            assert!(
                b2.starts_with("Schema mismatch") && !b2.contains("disabled"),
                "B's first stale call is B's first strike: {b2}"
            );
        }
        let (code, err) = face.stop();
        // 1: a session ended with a tool disabled.
        assert_eq!(code, 1, "{err}");
        let traces = std::fs::read_dir(out.join("traces")).unwrap().count();
        assert_eq!(traces, if shared { 1 } else { 2 }, "{err}");
    }
}

/// A server that fails at once is reported with the way to give it a variable it may
/// lack (its environment is allow-listed), and one that mentions a withheld variable on
/// its command line is named before it starts (issue #45).
#[test]
fn a_failing_server_is_reported_with_the_environment_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let mut gw = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(["gateway", "--out"])
        .arg(tmp.path().join("o"))
        .args([
            "--",
            "python3",
            "-c",
            "import sys; sys.exit(3)",
            "$GC_WITHHELD_TOKEN",
        ])
        .env("GC_WITHHELD_TOKEN", "secret")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rx = line_channel(gw.stderr.take().unwrap());
    let mut seen = Vec::new();
    let hint = loop {
        let l = rx
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no report in {seen:?}"));
        if l.contains("exited with status 3") {
            break l;
        }
        seen.push(l);
    };
    drop(gw.stdin.take());
    let _ = gw.wait();
    assert!(
        hint.contains("--pass-env NAME gives it a variable it needs"),
        "{hint}"
    );
    assert!(
        seen.iter()
            .any(|l| l.contains("mentions GC_WITHHELD_TOKEN, which it does not get")),
        "{seen:?}"
    );
}

/// What a slow or stalled HTTP client gets from a server on `addr` (host:port) started
/// with `--read-timeout 1`: headers that stop half way and a body that stops half way
/// are cut within a few seconds (the body with 408), while a body sent in pieces slower
/// than the deadline overall, but never idle that long, is taken (its status returned).
fn slow_clients(addr: &str, path: &str, headers: &str, body: &[u8]) -> String {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let deadline = Duration::from_secs(10);
    let read_all = |s: &mut std::net::TcpStream| {
        s.set_read_timeout(Some(deadline)).unwrap();
        let mut r = Vec::new();
        let started = Instant::now();
        let _ = s.read_to_end(&mut r);
        (String::from_utf8_lossy(&r).into_owned(), started.elapsed())
    };
    // Headers that never end.
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "POST {path} HTTP/1.1\r\nHost: {addr}\r\n").unwrap();
    let (r, took) = read_all(&mut s);
    assert!(
        took < Duration::from_secs(5),
        "half headers held {took:?}: {r}"
    );
    // A body that stops half way: 408, then the connection closes.
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(&body[..body.len() / 2]).unwrap();
    let (r, took) = read_all(&mut s);
    assert!(
        took < Duration::from_secs(5),
        "half a body held {took:?}: {r}"
    );
    assert!(r.starts_with("HTTP/1.1 408"), "{r}");
    assert!(r.contains("the request body stopped for 1 s"), "{r}");
    // Slow but steady: five pieces 0.5 s apart (2 s in all, twice the deadline).
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    let piece = body.len().div_ceil(5);
    for part in body.chunks(piece) {
        std::thread::sleep(Duration::from_millis(500));
        s.write_all(part).unwrap();
    }
    let (r, _) = read_all(&mut s);
    r.lines().next().unwrap_or_default().to_string()
}

#[test]
fn slow_clients_are_cut_by_the_read_deadline_on_both_http_faces() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // The gateway's HTTP face, before a session exists.
    let script = root().join("tests/fixtures/gateway/flaky_server.py");
    let server = vec!["python3".to_string(), script.display().to_string()];
    let mut face =
        crate::producers::Listening::start(&d.join("gw"), &["--read-timeout", "1"], &server, &[]);
    let addr = face
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "slow", "version": "1"}}});
    let status = slow_clients(
        &addr,
        "/mcp",
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
        init.to_string().as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    unsafe { libc::kill(face.child.id() as i32, libc::SIGTERM) };
    let code = face.child.wait().unwrap();
    assert_eq!(code.code(), Some(0), "{code:?}");

    // collect's OTLP/HTTP face.
    let mut collect = crate::support::cmd(&root())
        .args([
            "collect",
            "--listen",
            "127.0.0.1:0",
            "--read-timeout",
            "1",
            "--out",
        ])
        .arg(d.join("col"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines =
        std::io::BufRead::lines(std::io::BufReader::new(collect.stdout.take().unwrap()));
    let first = lines.next().unwrap().unwrap();
    let addr = first.rsplit("http://").next().unwrap().trim().to_string();
    // The agent's first request sent slowly, the others at once.
    let bodies = crate::producers::requests(
        &root().join("tests/fixtures/import/captured/pydantic-ai-genai/agent.pb"),
    );
    let status = slow_clients(
        &addr,
        "/v1/traces",
        "Content-Type: application/x-protobuf\r\n",
        &bodies[0],
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    for b in &bodies[1..] {
        let r = crate::producers::post(&addr, "application/x-protobuf", b);
        assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    }
    unsafe { libc::kill(collect.id() as i32, libc::SIGTERM) };
    let out = collect.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
