//! Traces made by the real libraries agents use, imported and collected, then labeled.
//!
//! The producers (tests/producers) are real agents and servers with a scripted model:
//! pydantic-ai with its own GenAI spans or OpenInference's, openai-agents with
//! OpenInference, the official MCP SDK with OpenLLMetry, a fastmcp server with its own
//! spans, a Phoenix server. They play seed 000's opening example as the demo records it for
//! case emea-active-q2-017, so the imported traces must label exactly as the demo's
//! golden labels for that case (hand-reviewed), however many spans describe each call.
//! Their venvs come from scripts/setup.sh; a missing venv fails the test, never skips it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::{cmd, demo, ok, root, run, sql_csv};

pub fn venv_python(name: &str) -> PathBuf {
    let base = std::env::var_os("GROUNDCHECK_VENVS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/groundcheck/venvs")
        });
    let py = base.join(name).join("bin/python");
    assert!(
        py.exists(),
        "{} is missing: run scripts/setup.sh (it installs the producer venvs)",
        py.display()
    );
    py
}

/// Runs a producer script; returns conversation name -> trace id from its stdout.
fn produce(
    venv: &str,
    script: &str,
    dir: &Path,
    args: &[&str],
    env: &[(&str, String)],
) -> BTreeMap<String, String> {
    let mut c = Command::new(venv_python(venv));
    c.arg(root().join("tests/producers").join(script));
    produce_with(c, dir, args, env)
}

/// Runs a producer program (`c`: the program and its script); returns conversation name
/// -> trace id from its stdout.
fn produce_with(
    mut c: Command,
    dir: &Path,
    args: &[&str],
    env: &[(&str, String)],
) -> BTreeMap<String, String> {
    let script = format!("{:?}", c.get_args().next().unwrap_or_default());
    c.args(args)
        .current_dir(dir)
        .env("GC_SPANS_FILE_SERVER", dir.join("server"))
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run producer");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            Some((
                v["conversation"].as_str()?.to_string(),
                v["trace_id"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// A project with the demo's context and the demo's case emea-active-q2-017, its
/// source_trace the id of the trace that Server A's conversation got.
pub fn project(dir: &Path, source_trace: &str) -> PathBuf {
    let p = dir.join("project");
    crate::support::copy_dir(&demo().join("context"), &p.join("context"));
    let case = std::fs::read_to_string(demo().join("cases.jsonl"))
        .unwrap()
        .lines()
        .find(|l| l.contains("\"emea-active-q2-017\""))
        .unwrap()
        .replace("\"trace_9f31c2\"", &format!("\"{source_trace}\""));
    std::fs::write(p.join("cases.jsonl"), case + "\n").unwrap();
    p
}

pub fn files(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

/// The demo's golden labels for the case, by server; the hedging step is where the
/// imported trace has its reasoning step.
pub fn golden(hedging_step: usize) -> BTreeMap<String, Value> {
    std::fs::read_to_string(root().join("tests/golden/demo/labels.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["case_id"] == "emea-active-q2-017")
        .map(|mut v| {
            strip_provenance(&mut v);
            let s = v.to_string().replace(
                "semantic/hedging: step 6:",
                &format!("semantic/hedging: step {hedging_step}:"),
            );
            let v: Value = serde_json::from_str(&s).unwrap();
            (v["server"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

pub fn labels(data: &Path, out: &Path, source: &[&str]) -> BTreeMap<String, Value> {
    let mut args = vec![
        "label",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(source);
    ok(&root(), &args);
    std::fs::read_to_string(out.join("labels.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|mut v| {
            strip_provenance(&mut v);
            (v["server"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// Where a label came from (its run, traces and spans) differs between the demo and an
/// imported trace of the same conversation; the verdicts must not.
fn strip_provenance(v: &mut Value) {
    let o = v.as_object_mut().unwrap();
    for k in ["run_id", "trace_ids", "answer_span_id", "call_span_ids"] {
        o.remove(k);
    }
}

/// The steps of a traces table, without what a new run changes (times, and the server's
/// as_of in results).
pub fn steps(data: &Path, traces: &Path) -> String {
    sql_csv(
        data,
        &[("steps", traces)],
        "SELECT server, trace_id, step, kind, case_id, call_id, tool, arguments, \
         regexp_replace(result, '\"as_of\":\"[^\"]*\"', '\"as_of\":\"T\"') AS result, is_error, \
         as_of IS NOT NULL AS has_as_of, as_user, model, input_tokens, output_tokens, text \
         FROM steps ORDER BY trace_id, step",
    )
}

/// Server A's steps as the importer must give them, hand-worked from scenarios.py: the
/// agent, MCP client and MCP server spans of each call are one call.
/// `model_ids`: whether the call ids are the model's (else the importer named the call by
/// its span, which a new run changes).
pub fn check_server_a_steps(csv: &str, trace: &str, model_ids: bool) {
    let rows: Vec<&str> = csv.lines().filter(|l| l.contains(trace)).collect();
    let field = |step: &str, n: usize| -> String {
        let row = rows
            .iter()
            .find(|r| r.split(',').nth(2) == Some(step))
            .unwrap_or_else(|| panic!("no step {step} in\n{csv}"));
        row.split(',').nth(n).unwrap().to_string()
    };
    let call_id = |id: &str| {
        if model_ids {
            id.to_string()
        } else {
            field("10", 5)
        }
    };
    assert_eq!(
        field("11", 5),
        call_id("call_a3"),
        "the result pairs with its call"
    );
    let kinds: Vec<&str> = rows.iter().map(|r| r.split(',').nth(3).unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
            "tool_call",
            "tool_result",
            "reasoning",
            "assistant",
            "tool_call",
            "tool_result",
            "answer"
        ],
        "{csv}"
    );
    let sql = format!(
        "generic-warehouse,{trace},10,tool_call,emea-active-q2-017,{},run_sql,\"{{\"\"sql\"\":\"\"SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at < '2026-07-01'\"\"}}\",,,false,fin.analyst.02,",
        call_id("call_a3")
    );
    assert!(csv.contains(&sql), "want {sql} in\n{csv}");
    let result = format!(
        "generic-warehouse,{trace},11,tool_result,emea-active-q2-017,{},run_sql,,",
        call_id("call_a3")
    );
    let line = rows
        .iter()
        .find(|r| r.starts_with(&result))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(
        line.contains("\"\"rows\"\":[[1284]]") && line.contains(",false,true,fin.analyst.02,"),
        "{line}"
    );
}

/// Runs `collect` (OTLP/HTTP, or OTLP/gRPC with `grpc`) into `d/name`, the pydantic-ai agent
/// exporting to it, then SIGTERM; returns what collect printed at the end.
fn collected(
    d: &Path,
    proj: &Path,
    name: &str,
    grpc: bool,
    ids: &BTreeMap<String, String>,
) -> String {
    let mut c = cmd(&root());
    c.args([
        "collect",
        "--listen",
        "127.0.0.1:0",
        "--idle",
        "1",
        "--out",
        d.join(name).to_str().unwrap(),
    ])
    .args(["--cases", proj.join("cases.jsonl").to_str().unwrap()]);
    if grpc {
        c.args(["--grpc", "127.0.0.1:0"]);
    }
    let mut collect = c
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(collect.stdout.take().unwrap()).lines();
    let mut first = lines.next().unwrap().unwrap();
    let mut env = vec![];
    if grpc {
        let addr = first.rsplit(' ').next().unwrap().to_string();
        env.push(("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{addr}")));
        env.push(("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".to_string()));
        first = lines.next().unwrap().unwrap();
    } else {
        let endpoint = first
            .rsplit("OTEL_EXPORTER_OTLP_ENDPOINT=")
            .next()
            .unwrap()
            .trim()
            .to_string();
        env.push(("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint));
    }
    assert!(
        first.contains("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:"),
        "{first}"
    );
    let dir = d.join(format!("{name}-agent"));
    std::fs::create_dir_all(&dir).unwrap();
    let again = produce("producers", "pydantic_agent.py", &dir, &[], &env);
    assert_eq!(
        &again, ids,
        "seeded ids: the same run gives the same trace ids"
    );
    // SIGTERM writes what is held and stops with a summary.
    unsafe { libc::kill(collect.id() as i32, libc::SIGTERM) };
    let status = collect.wait().unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(status.success(), "{rest:?}");
    rest.join("\n")
}

#[test]
fn pydantic_ai_genai_spans_from_files_and_over_otlp_http() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce(
        "producers",
        "pydantic_agent.py",
        d,
        &["--spans-file", d.join("agent").to_str().unwrap()],
        &[],
    );
    let a = &ids["generic-emea-active"];
    let proj = project(d, a);
    // Files: the agent's and both servers' spans, protobuf (length-prefixed, as the
    // Collector writes) and OTLP JSON lines. One call per logical call, not four.
    let mut inputs = files(d, ".pb");
    let out = crate::import::import(
        "otlp",
        &inputs,
        &["--cases", proj.join("cases.jsonl").to_str().unwrap()],
        &d.join("imp"),
    );
    assert!(
        out.contains(" tool span(s) merged into 7 call(s), 12 model call(s), "),
        "{out}"
    );
    assert!(
        out.contains("32 step(s) in 4 trace(s), 2 of them tied to a case"),
        "{out}"
    );
    assert!(out.contains("note: 2 trace(s) matched no case"), "{out}");
    let from_pb = steps(&proj, &d.join("imp/traces/otlp.parquet"));
    check_server_a_steps(&from_pb, a, true);
    check_clarified(&proj, &d.join("imp/traces"), &ids, &CLARIFIED);
    // The rejected query: an error result with the server's message, then the retry.
    let c = &ids["generic-bad-query"];
    assert!(from_pb.contains(&format!("generic-warehouse,{c},4,tool_result,,call_c1,run_sql,,\"\"\"Error calling tool 'run_sql': syntax error at or near 'SELEC'\"\"\",true,false,")), "{from_pb}");
    inputs = files(d, ".jsonl");
    crate::import::import(
        "otlp",
        &inputs,
        &["--cases", proj.join("cases.jsonl").to_str().unwrap()],
        &d.join("imp-json"),
    );
    assert_eq!(
        steps(&proj, &d.join("imp-json/traces/otlp.parquet")),
        from_pb
    );
    // Labeled as the demo's hand-reviewed labels for the same conversation.
    let got = labels(
        &proj,
        &d.join("out"),
        &[
            "--table",
            &format!("steps={}", d.join("imp/traces").display()),
        ],
    );
    assert_eq!(got, golden_for(Meta::Dropped));

    // The same agent exporting over OTLP/HTTP (the SDK's protobuf exporter) to collect,
    // then over OTLP/gRPC.
    let summary = collected(d, &proj, "col", false, &ids);
    assert!(
        summary.contains("span(s), 4 trace(s) (2 tied to a case), 32 step(s)"),
        "{summary}"
    );
    let grpc = collected(d, &proj, "col-grpc", true, &ids);
    assert!(
        grpc.contains("span(s), 4 trace(s) (2 tied to a case), 32 step(s)"),
        "{grpc}"
    );
    assert_eq!(steps(&proj, &d.join("col-grpc/traces")), from_pb);
    assert_eq!(steps(&proj, &d.join("col/traces")), from_pb);
    // The archive holds every request as received: importing it gives the same steps.
    let archive = files(&d.join("col/collect"), ".otlp.pb");
    assert_eq!(archive.len(), 1, "{archive:?}");
    ok(
        &root(),
        &[
            "import",
            "otlp",
            &archive[0],
            "--run-id",
            "collect",
            "--cases",
            proj.join("cases.jsonl").to_str().unwrap(),
            "--out",
            d.join("arch").to_str().unwrap(),
        ],
    );
    assert_eq!(steps(&proj, &d.join("arch/traces")), from_pb);
    let got = labels(
        &proj,
        &d.join("out-col"),
        &[
            "--table",
            &format!("steps={}", d.join("col/traces").display()),
        ],
    );
    assert_eq!(got, golden_for(Meta::Dropped));
}

/// The pydantic-ai agent traced by OpenInference, run into `d`: Server A's conversation
/// trace id, a project with its case, and the OTLP request files, imported into `d/imp`
/// with that case.
fn openinference_pydantic_ai(d: &Path) -> (String, PathBuf, Vec<String>) {
    let ids = produce(
        "producers",
        "pydantic_agent.py",
        d,
        &[
            "--instrumentation",
            "openinference",
            "--spans-file",
            d.join("agent").to_str().unwrap(),
        ],
        &[],
    );
    let a = ids["generic-emea-active"].clone();
    let proj = project(d, &a);
    let pb = files(d, ".pb");
    let cases = proj.join("cases.jsonl");
    crate::import::import(
        "otlp",
        &pb,
        &["--cases", cases.to_str().unwrap()],
        &d.join("imp"),
    );
    check_clarified(&proj, &d.join("imp/traces"), &ids, &CLARIFIED);
    (a, proj, pb)
}

/// pydantic-ai traced by OpenInference, imported; then one real Phoenix server fed the
/// same OTLP requests: each of its export shapes imports to the same steps, and (issue
/// #47, the round trip) `annotate` run twice puts one annotation per task and figure on
/// the span of each task's answer, read back with Phoenix's own client equal to
/// labels.parquet (the rerun updated, never added). One Phoenix start serves both: it
/// takes most of a minute.
#[test]
fn openinference_pydantic_ai_into_phoenix_and_back() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (a, proj, pb) = openinference_pydantic_ai(d);
    let a = &a;
    let reference = steps(&proj, &d.join("imp/traces"));
    check_server_a_steps(&reference, a, true);
    assert_eq!(
        labels(
            &proj,
            &d.join("out"),
            &[
                "--table",
                &format!("steps={}", d.join("imp/traces").display())
            ]
        ),
        golden_for(Meta::Dropped)
    );
    let mut c = Command::new(venv_python("phoenix"));
    c.arg(root().join("tests/producers/phoenix_export.py"))
        .arg("--otlp")
        .args(&pb)
        .args(["--out", d.join("phoenix").to_str().unwrap()])
        .args(["--annotate", d.join("out").to_str().unwrap()])
        .args(["--groundcheck", env!("CARGO_BIN_EXE_groundcheck")])
        .args(["--screenshot", d.join("phoenix-ui.png").to_str().unwrap()]);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in [
        "phoenix-get-spans.jsonl",
        "phoenix-rest-page.json",
        "phoenix-otlpv1.json",
        "phoenix-dataframe.jsonl",
        "phoenix-trace-dataset.parquet",
    ] {
        let o = d.join(format!("imp-{f}"));
        ok(
            &root(),
            &[
                "import",
                "phoenix",
                d.join("phoenix").join(f).to_str().unwrap(),
                "--cases",
                proj.join("cases.jsonl").to_str().unwrap(),
                "--out",
                o.to_str().unwrap(),
            ],
        );
        assert_eq!(steps(&proj, &o.join("traces")), reference, "{f}");
    }

    let mut got: Vec<Value> = std::fs::read_to_string(d.join("phoenix/phoenix-annotations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = got.pop().unwrap();
    let (want, rows) = annotation_rows(&proj, &d.join("out/labels.parquet"));
    let spans = rows
        .iter()
        .filter(|r| r.contains(",groundcheck.correct,"))
        .count();
    assert!(spans > 0, "no labeled task has an answer span: {want}");
    // Beyond the four verdicts, this project has figures to say more about.
    assert!(rows.len() > 4 * spans, "{want}");
    assert_eq!(summary["annotations"], rows.len(), "{summary}");
    assert!(
        summary["runs"][1]
            .as_str()
            .unwrap()
            .starts_with("annotated "),
        "{summary}"
    );
    let score = |v: &Value| v.as_f64().map(|x| format!("{x}")).unwrap_or_default();
    let mut read: Vec<String> = Vec::new();
    for a in &got {
        assert_eq!(a["identifier"], "groundcheck", "{a}");
        assert_eq!(a["kind"], "CODE", "{a}");
        read.push(format!(
            "{},{},{},{}",
            a["span_id"].as_str().unwrap(),
            a["name"].as_str().unwrap(),
            a["label"].as_str().unwrap(),
            score(&a["score"]),
        ));
    }
    read.sort();
    assert_eq!(read, rows);
    // The same verdicts on each task's trace, where the trace holds that task alone (here
    // every one: a question a trace).
    let pairs = sql_csv(
        &proj,
        &[("l", &d.join("out/labels.parquet"))],
        "SELECT trace_ids[1] AS t, answer_span_id AS s FROM l WHERE answer_span_id IS NOT NULL",
    );
    let trace_of: BTreeMap<&str, &str> = pairs
        .lines()
        .skip(1)
        .map(|l| {
            let (t, s) = l.split_once(',').unwrap();
            (s, t)
        })
        .collect();
    let mut tasks: BTreeMap<&str, usize> = BTreeMap::new();
    for t in trace_of.values() {
        *tasks.entry(t).or_default() += 1;
    }
    let mut on_traces: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let (span, rest) = r.split_once(',').unwrap();
            let t = trace_of[span];
            (tasks[t] == 1).then(|| format!("{t},{rest}"))
        })
        .collect();
    on_traces.sort();
    assert_eq!(on_traces.len(), rows.len(), "{pairs}");
    let mut read_traces: Vec<String> =
        std::fs::read_to_string(d.join("phoenix/phoenix-trace-annotations.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|a| {
                assert_eq!(a["identifier"], "groundcheck", "{a}");
                format!(
                    "{},{},{},{}",
                    a["trace_id"].as_str().unwrap(),
                    a["name"].as_str().unwrap(),
                    a["label"].as_str().unwrap(),
                    score(&a["score"]),
                )
            })
            .collect();
    read_traces.sort();
    assert_eq!(read_traces, on_traces);
    // Phoenix's own UI, in a real browser, shows them: on the trace's header and in the
    // answer span's annotations table, name and label as sent.
    let ui: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("phoenix/phoenix-ui.json")).unwrap())
            .unwrap();
    let trace = ui["trace_id"].as_str().unwrap();
    let header = ui["trace_header"].as_str().unwrap();
    assert!(header.contains("groundcheck.correct"), "{header}");
    let mut shown: Vec<String> = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["kind"], "CODE", "{r}");
            format!(
                "{},{}",
                r["name"].as_str().unwrap(),
                r["label"].as_str().unwrap()
            )
        })
        .collect();
    shown.sort();
    let mut sent_here: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let mut f = r.splitn(4, ',');
            let (span, name, label) = (f.next()?, f.next()?, f.next()?);
            (trace_of[span] == trace).then(|| format!("{name},{label}"))
        })
        .collect();
    sent_here.sort();
    assert!(sent_here.len() >= 4, "{rows:?}");
    assert_eq!(shown, sent_here);
    // The picture in docs/trace-stores.md comes from here.
    let _ = std::fs::copy(
        d.join("phoenix-ui.png"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("phoenix-annotations.png"),
    );

    // The same verdicts as OpenTelemetry GenAI evaluation events, to an OTLP/HTTP
    // receiver that fails its first request (503: retried) and decodes with the
    // OpenTelemetry proto package: one gen_ai.evaluation.result per annotation, parented
    // to the task's trace and answer span.
    let events = d.join("events.jsonl");
    let mut rx = Command::new(venv_python("phoenix"))
        .arg(root().join("tests/producers/otlp_logs_receiver.py"))
        .arg(&events)
        .args(["--fail-first", "1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(rx.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let port = first
        .trim()
        .strip_prefix("listening ")
        .expect("a port")
        .to_string();
    let sent = ok(
        &root(),
        &[
            "annotate",
            d.join("out").to_str().unwrap(),
            "--otlp",
            &format!("http://127.0.0.1:{port}"),
        ],
    );
    let _ = rx.kill();
    let _ = rx.wait();
    let got: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got.len(), rows.len(), "{sent}");
    let traces = sql_csv(
        &proj,
        &[("l", &d.join("out/labels.parquet"))],
        "SELECT trace_ids[1] AS t, answer_span_id FROM l WHERE answer_span_id IS NOT NULL ORDER BY 2",
    );
    let mut sent_rows = Vec::new();
    for e in &got {
        assert_eq!(e["event_name"], "gen_ai.evaluation.result", "{e}");
        assert_eq!(e["service"], "groundcheck", "{e}");
        let span = e["span_id"].as_str().unwrap();
        let pair = format!("{},{span}", e["trace_id"].as_str().unwrap());
        assert!(traces.lines().any(|l| l == pair), "{pair} not in {traces}");
        let at = &e["attributes"];
        sent_rows.push(format!(
            "{span},{},{},{}",
            at["gen_ai.evaluation.name"].as_str().unwrap(),
            at["gen_ai.evaluation.score.label"].as_str().unwrap(),
            score(&at["gen_ai.evaluation.score.value"]),
        ));
    }
    sent_rows.sort();
    assert_eq!(sent_rows, rows);
}

#[test]
fn openai_agents_with_openinference() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce(
        "producers",
        "openai_agents_agent.py",
        d,
        &["--spans-file", d.join("agent").to_str().unwrap()],
        &[],
    );
    let a = &ids["generic-emea-active"];
    let proj = project(d, a);
    let cases = proj.join("cases.jsonl");
    let out = crate::import::import(
        "otlp",
        &files(d, ".pb"),
        &["--cases", cases.to_str().unwrap()],
        &d.join("imp"),
    );
    assert!(
        out.contains("merged into 7 call(s), 12 model call(s)"),
        "{out}"
    );
    let got = steps(&proj, &d.join("imp/traces"));
    // openai-agents' tool spans carry no model call id: the call is named by its span.
    check_server_a_steps(&got, a, false);
    check_clarified(&proj, &d.join("imp/traces"), &ids, &CLARIFIED);
    assert_eq!(
        labels(
            &proj,
            &d.join("out"),
            &[
                "--table",
                &format!("steps={}", d.join("imp/traces").display())
            ]
        ),
        golden_for(Meta::Dropped)
    );
}

/// A producer in its own venv whose MCP server (fastmcp 4) runs in the producers venv.
fn produce_beside(venv: &str, script: &str, dir: &Path, args: &[&str]) -> BTreeMap<String, String> {
    let agent = dir.join("agent");
    let mut all = vec!["--spans-file", agent.to_str().unwrap()];
    all.extend_from_slice(args);
    produce(
        venv,
        script,
        dir,
        &all,
        &[(
            "GC_SERVER_PYTHON",
            venv_python("producers").display().to_string(),
        )],
    )
}

/// Whether a producer's traces carry the MCP result's `_meta`, where the task tool puts its
/// `as_of` (the generic tools put it in the body). Those that record the whole
/// CallToolResult keep it; those that record (and hand their model) the text content only
/// drop it: the task's one result then has no timestamp, and it fails freshness as seed 000
/// defines it ("if the tool result carries no timestamp, the task fails freshness"), named
/// by the import under `lacking: as_of`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Meta {
    Kept,
    Dropped,
}

/// The demo's golden labels for the case as a producer that keeps or drops `_meta` gives
/// them: with `_meta` dropped, Server B's task is a temporal failure, and so not grounded.
pub fn golden_for(meta: Meta) -> BTreeMap<String, Value> {
    let mut g = golden(8);
    if meta == Meta::Dropped {
        let b = g.get_mut("task-specific").unwrap();
        for (k, v) in [
            ("auto_failure_class", json!("temporal")),
            ("failure_class", json!("temporal")),
            ("failure_classes", json!(["temporal"])),
            (
                "failure_evidence",
                json!(["temporal/freshness: 1 result(s) without as_of"]),
            ),
            ("freshness_pass", json!(false)),
            ("grounded", json!(false)),
            ("auto_grounded", json!(false)),
        ] {
            b[k] = v;
        }
    }
    g
}

/// Imports a producer's files (agent and servers), and checks what every producer must
/// give: Server A's steps exactly, the rejected query and its retry, each result's as_of
/// (the task tool's from `_meta` where the producer keeps it), and the demo's golden labels
/// for the case.
fn check_producer(
    d: &Path,
    ids: &BTreeMap<String, String>,
    summary: &str,
    model_ids: bool,
    meta: Meta,
    clarified: &[&str],
) {
    let (proj, traces) = check_producer_steps(d, ids, summary, model_ids, clarified);
    let b = &ids["task-emea-active"];
    let task = sql_csv(
        &proj,
        &[("steps", &traces)],
        &format!(
            "SELECT as_of IS NOT NULL AS has_as_of, result LIKE '%\"is_error\":false%' AS own_is_error, \
             is_error FROM steps WHERE kind = 'tool_result' AND trace_id = '{b}'"
        ),
    );
    assert_eq!(
        task,
        format!(
            "has_as_of,own_is_error,is_error\n{},true,false\n",
            meta == Meta::Kept
        ),
        "the task tool's result: as_of from _meta ({meta:?}), its body's is_error key kept and not MCP's flag"
    );
    assert_eq!(
        labels(
            &proj,
            &d.join("out"),
            &["--table", &format!("steps={}", traces.display())]
        ),
        golden_for(meta)
    );
}

/// The steps part of `check_producer`; returns the project and the imported traces.
pub fn check_producer_steps(
    d: &Path,
    ids: &BTreeMap<String, String>,
    summary: &str,
    model_ids: bool,
    clarified: &[&str],
) -> (PathBuf, PathBuf) {
    let a = &ids["generic-emea-active"];
    let proj = project(d, a);
    let cases = proj.join("cases.jsonl");
    let out = crate::import::import(
        "otlp",
        &files(d, ".pb"),
        &["--cases", cases.to_str().unwrap()],
        &d.join("imp"),
    );
    assert!(out.contains(summary), "want {summary} in\n{out}");
    let traces = d.join("imp/traces");
    let got = steps(&proj, &traces);
    check_server_a_steps(&got, a, model_ids);
    let c = &ids["generic-bad-query"];
    let retry = sql_csv(
        &proj,
        &[("steps", &traces)],
        &format!(
            "SELECT trace_id, step, tool, is_error, result LIKE '%syntax error at or near%' AS says_why, \
             as_of IS NOT NULL AS has_as_of FROM steps WHERE kind = 'tool_result' AND trace_id = '{c}' ORDER BY step"
        ),
    );
    assert_eq!(
        retry,
        format!(
            "trace_id,step,tool,is_error,says_why,has_as_of\n{c},4,run_sql,true,true,false\n{c},7,run_sql,false,false,true\n"
        ),
        "the rejected query is an error, its retry is not"
    );
    check_clarified(&proj, &traces, ids, clarified);
    (proj, traces)
}

/// The clarification conversation's steps (scenarios.py `task-clarified`), reasoning aside,
/// as most producers give them: the model's question is an assistant message, the user's
/// answer (in the second run's input) a user step.
pub const CLARIFIED: [&str; 7] = [
    "user,,,How many active customers did we have last quarter?",
    "assistant,,,\"Which region do you mean: EMEA, AMER or APAC?\"",
    "user,,,\"EMEA, please.\"",
    "assistant,,,",
    "tool_call,active_customer_count,\"{\"\"period\"\":\"\"FY2027-Q1\"\",\"\"region\"\":\"\"EMEA\"\"}\",",
    "tool_result,active_customer_count,,",
    "answer,,,\"1,284 active customers in EMEA in fiscal Q1 FY2027.\"",
];

/// smolagents sends each run's message as its own prompt template: "New task:\n…".
pub const SMOLAGENTS_CLARIFIED: [&str; 7] = [
    "user,,,\"New task:\nHow many active customers did we have last quarter?\"",
    CLARIFIED[1],
    "user,,,\"New task:\nEMEA, please.\"",
    CLARIFIED[3],
    CLARIFIED[4],
    CLARIFIED[5],
    CLARIFIED[6],
];

/// CrewAI: the crew's task prompt, the model's question, then what `Agent.kickoff` is
/// given: the history (the question as the user asked it) and the user's answer in
/// CrewAI's own task prompt.
const CREWAI_CLARIFIED: [&str; 8] = [
    "user,,,\"\nCurrent Task: How many active customers did we have last quarter?\n\nThis is the expected criteria for your final answer: The answer.\nyou MUST return the actual complete content as the final answer, not a summary.\"",
    CLARIFIED[1],
    "user,,,How many active customers did we have last quarter?",
    "user,,,\"\nCurrent Task: EMEA, please.\"",
    CLARIFIED[3],
    CLARIFIED[4],
    CLARIFIED[5],
    CLARIFIED[6],
];

/// Checks the clarification conversation: its steps exactly (`want`, reasoning aside), one
/// clarification loop counted for its trace, and `sample` filing it under clarification.
pub fn check_clarified(proj: &Path, traces: &Path, ids: &BTreeMap<String, String>, want: &[&str]) {
    let t = &ids["task-clarified"];
    let got = sql_csv(
        proj,
        &[("steps", traces)],
        &format!(
            "SELECT kind, tool, arguments, text FROM steps \
             WHERE trace_id = '{t}' AND kind <> 'reasoning' ORDER BY step"
        ),
    );
    assert_eq!(
        got,
        format!("kind,tool,arguments,text\n{}\n", want.join("\n")),
        "the clarification conversation's steps"
    );
    let outcome = sql_csv(
        proj,
        &[("steps", traces)],
        &format!("SELECT outcome, clarifications FROM trace_outcomes WHERE trace_id = '{t}'"),
    );
    assert_eq!(
        outcome, "outcome,clarifications\nclarification,1\n",
        "the user's answer to the agent's question is one clarification loop"
    );
}

#[test]
fn strands_agents_with_messages_in_span_events_and_in_attributes() {
    // Strands' own GenAI spans: by default the messages are per-message span events
    // (conventions 1.36); opted into the latest conventions, they are
    // `gen_ai.client.inference.operation.details` events and tool attributes.
    for semconv in ["legacy", "latest"] {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let ids = produce_beside("strands", "strands_agent.py", d, &["--semconv", semconv]);
        check_producer(
            d,
            &ids,
            "merged into 7 call(s), 12 model call(s)",
            true,
            Meta::Dropped,
            &CLARIFIED,
        );
    }
}

#[test]
fn smolagents_with_openinference() {
    // Arguments recorded as a Python call ({"args", "kwargs"}), messages as typed
    // contents, the answer given through smolagents' final_answer tool, and an MCP
    // client that propagates no context: the server's spans join by tool and time.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce_beside("smolagents", "smolagents_agent.py", d, &[]);
    check_producer(
        d,
        &ids,
        "merged into 12 call(s) (5 of them the agent's answer), 12 model call(s)",
        false,
        Meta::Dropped,
        &SMOLAGENTS_CLARIFIED,
    );
}

#[test]
fn crewai_with_openinference() {
    // A CrewAI crew (one agent, one task) on crewai-tools' MCP adapter, its model
    // CrewAI's own OpenAI provider: OpenInference's CrewAI instrumentation records the
    // crew, task and agent as CHAIN/AGENT spans and each tool use as a TOOL span, its
    // OpenAI instrumentation the model calls (the question and the answer).
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce_beside("crewai", "crewai_agent.py", d, &[]);
    check_producer(
        d,
        &ids,
        "merged into 7 call(s), 12 model call(s)",
        true,
        Meta::Dropped,
        &CREWAI_CLARIFIED,
    );
}

#[test]
fn langgraph_with_openinference_and_with_openllmetry() {
    // OpenInference records a one-argument tool's input as a bare string and the result
    // as a ToolMessage; OpenLLMetry records LangChain's tool-start callback (Python
    // reprs) and the ToolMessage in LangChain's own serialisation. Either way the
    // arguments are the model's, by the message's call id.
    for instrumentation in ["openinference", "openllmetry"] {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let ids = produce_beside(
            "langgraph",
            "langgraph_agent.py",
            d,
            &["--instrumentation", instrumentation],
        );
        check_producer(
            d,
            &ids,
            "merged into 7 call(s), 12 model call(s)",
            true,
            Meta::Dropped,
            &CLARIFIED,
        );
    }
}

#[test]
fn llamaindex_with_openinference() {
    // LlamaIndex's FunctionAgent through llama-index-tools-mcp (a server process per
    // call, no client span): the TOOL span's output is LlamaIndex's ToolOutput, whose
    // `raw_output` is the CallToolResult in the Python SDK's field names beside its repr.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce_beside("llamaindex", "llamaindex_agent.py", d, &[]);
    check_producer(
        d,
        &ids,
        "21 tool span(s) merged into 7 call(s), 12 model call(s)",
        true,
        Meta::Kept,
        &CLARIFIED,
    );
}

/// What labels.parquet says, as every store's annotations must say it: one
/// "span,name,label,score" row per task and figure, sorted (the CSV itself beside them).
fn annotation_rows(proj: &Path, labels: &Path) -> (String, Vec<String>) {
    let want = sql_csv(
        proj,
        &[("l", labels)],
        "WITH t AS (SELECT * FROM l WHERE answer_span_id IS NOT NULL) \
         SELECT answer_span_id AS s, 'groundcheck.correct' AS n, \
           CASE WHEN correct THEN 'correct' WHEN NOT correct THEN 'wrong' ELSE 'undecided' END AS v, \
           CAST(CAST(correct AS INT) AS DOUBLE) AS x FROM t \
         UNION ALL SELECT answer_span_id, 'groundcheck.grounded', \
           CASE WHEN grounded THEN 'grounded' WHEN NOT grounded THEN 'not grounded' ELSE 'undecided' END, \
           CAST(CAST(grounded AS INT) AS DOUBLE) FROM t \
         UNION ALL SELECT answer_span_id, 'groundcheck.failure_class', coalesce(failure_class, 'none'), NULL FROM t \
         UNION ALL SELECT answer_span_id, 'groundcheck.review', \
           CASE WHEN needs_human_review THEN 'needs review' ELSE 'decided' END, NULL FROM t \
         UNION ALL SELECT answer_span_id, 'groundcheck.definition_match', \
           CASE WHEN definition_match THEN 'matches' ELSE 'does not match' END, \
           CAST(CAST(definition_match AS INT) AS DOUBLE) FROM t WHERE definition_match IS NOT NULL \
         UNION ALL SELECT answer_span_id, 'groundcheck.freshness', \
           CASE WHEN freshness_pass THEN 'fresh' WHEN NOT freshness_pass THEN 'stale' ELSE 'undecided' END, \
           CAST(CAST(freshness_pass AS INT) AS DOUBLE) FROM t WHERE freshness_bound \
         UNION ALL SELECT answer_span_id, 'groundcheck.policy', \
           CASE WHEN policy_violations = 0 THEN 'within policy' \
             ELSE CAST(policy_violations AS VARCHAR) || ' violating call(s)' END, \
           CAST(policy_violations AS DOUBLE) FROM t WHERE policy_violations IS NOT NULL \
         UNION ALL SELECT answer_span_id, 'groundcheck.cost_usd', coalesce(cost_source, 'priced'), cost_usd \
           FROM t WHERE cost_usd IS NOT NULL \
         UNION ALL SELECT answer_span_id, 'groundcheck.tool_calls', \
           CASE WHEN tool_calls_valid THEN 'valid' ELSE 'invalid' END, \
           CAST(CAST(tool_calls_valid AS INT) AS DOUBLE) FROM t WHERE tool_calls_valid IS NOT NULL \
         ORDER BY 1, 2",
    );
    // Scores as Rust prints an f64 (the CSV writes 1.0, Phoenix's JSON 1).
    let rows: Vec<String> = want
        .lines()
        .skip(1)
        .map(|r| {
            let (head, x) = r.rsplit_once(',').unwrap();
            let x = x.parse::<f64>().map(|x| format!("{x}")).unwrap_or_default();
            format!("{head},{x}")
        })
        .collect();
    (want, rows)
}

/// MLflow Tracing (mlflow-tracing, OTLP export as its docs say) into a real MLflow
/// tracking server and back (issue #47): openai autolog's CHAT_MODEL spans carry the
/// request and response in mlflow.spanInputs/spanOutputs, the TOOL spans the arguments
/// and the MCP result, no call id on a TOOL span. The traces as MLflow exports them
/// import to the steps of the producer's own OTLP copy; labeled, they go back as
/// assessments; MLflow's own client reads
/// back exactly one of ours per task and figure, equal to labels.parquet: a stale one
/// updated, a second copy and one the labels no longer have deleted, a person's left
/// alone, and a rerun changes nothing.
#[test]
fn mlflow_tracing_into_mlflow_and_back() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let script = root().join("tests/producers/mlflow_server.py");
    let mut mlflow = MlflowServer::start(&script);
    let url = mlflow.url.clone();
    let ids = produce_beside("mlflow", "mlflow_agent.py", d, &["--mlflow", &url]);
    let (proj, traces) = check_producer_steps(
        d,
        &ids,
        "21 tool span(s) merged into 7 call(s), 12 model call(s)",
        true,
        &CLARIFIED,
    );
    // What MLflow kept, as it exports it, imports to the steps the producer's own OTLP
    // copy gives, and labels as the demo's golden labels say.
    let exported = d.join("mlflow-traces.jsonl");
    mlflow.ask(&["export", exported.to_str().unwrap()]);
    let from_mlflow = d.join("imp-mlflow");
    ok(
        &root(),
        &[
            "import",
            "mlflow",
            exported.to_str().unwrap(),
            "--cases",
            proj.join("cases.jsonl").to_str().unwrap(),
            "--out",
            from_mlflow.to_str().unwrap(),
        ],
    );
    assert_eq!(
        steps(&proj, &from_mlflow.join("traces")),
        steps(&proj, &traces)
    );
    let out = d.join("out");
    assert_eq!(
        labels(
            &proj,
            &out,
            &[
                "--table",
                &format!("steps={}", from_mlflow.join("traces").display())
            ]
        ),
        golden(8)
    );
    let (want, rows) = annotation_rows(&proj, &out.join("labels.parquet"));
    let traces = sql_csv(
        &proj,
        &[("l", &out.join("labels.parquet"))],
        "SELECT count(DISTINCT trace_ids[1]) FROM l WHERE answer_span_id IS NOT NULL",
    );
    let traces: usize = traces.lines().nth(1).unwrap().parse().unwrap();
    assert!(traces > 0 && rows.len() > 4 * traces, "{want}");
    let listed = d.join("assessments.jsonl");
    let read = |mlflow: &mut MlflowServer| -> (Vec<String>, Vec<Value>) {
        mlflow.ask(&["assessments", listed.to_str().unwrap()]);
        let all: Vec<Value> = std::fs::read_to_string(&listed)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (ours, theirs): (Vec<Value>, Vec<Value>) = all
            .into_iter()
            .partition(|a| a["source_id"] == "groundcheck");
        let mut rows: Vec<String> = ours
            .iter()
            .map(|a| {
                assert_eq!(a["source_type"], "CODE", "{a}");
                assert_eq!(a["valid"], true, "{a}");
                format!(
                    "{},{},{},{}",
                    a["span_id"].as_str().unwrap(),
                    a["name"].as_str().unwrap(),
                    a["value"].as_str().unwrap(),
                    a["metadata"]["score"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        rows.sort();
        (rows, theirs)
    };
    // Before: what an earlier labeling left (a stale verdict, a second copy of it, a figure
    // no longer scored) and a person's verdict under the same name, on the first task.
    let (t, span) = {
        let csv = sql_csv(
            &proj,
            &[("l", &out.join("labels.parquet"))],
            "SELECT trace_ids[1], answer_span_id FROM l WHERE answer_span_id IS NOT NULL ORDER BY 2 LIMIT 1",
        );
        let line = csv.lines().nth(1).unwrap().to_string();
        let (t, s) = line.split_once(',').unwrap();
        (format!("tr-{t}"), s.to_string())
    };
    mlflow.ask(&["stale", &t, &span]);
    assert_eq!(read(&mut mlflow).0.len(), 3, "three of ours seeded");

    let o = d.to_str().unwrap();
    let first = run(
        &root(),
        &["annotate", &format!("{o}/out"), "--mlflow", &url],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.stderr.trim(),
        format!(
            "assessed {traces} trace(s) in MLflow at {url}: {} created, 1 updated, 0 unchanged, 1 no longer in the labels removed",
            rows.len() - 1
        )
    );
    let (got, theirs) = read(&mut mlflow);
    assert_eq!(got, rows);
    assert_eq!(theirs.len(), 1, "{theirs:?}");
    assert_eq!(theirs[0]["value"], "correct", "{theirs:?}");

    let again = run(
        &root(),
        &["annotate", &format!("{o}/out"), "--mlflow", &url],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.stderr.trim(),
        format!(
            "assessed {traces} trace(s) in MLflow at {url}: 0 created, 0 updated, {} unchanged",
            rows.len()
        )
    );
    assert_eq!(read(&mut mlflow).0, rows);

    // A trace MLflow no longer has is named and left out; with none left, a sentence.
    let all: Vec<String> = sql_csv(
        &proj,
        &[("l", &out.join("labels.parquet"))],
        "SELECT DISTINCT 'tr-' || trace_ids[1] AS t FROM l WHERE answer_span_id IS NOT NULL ORDER BY 1",
    )
    .lines()
    .skip(1)
    .map(str::to_string)
    .collect();
    let mut delete = |ids: &[String]| {
        let mut cmd = vec!["delete"];
        cmd.extend(ids.iter().map(String::as_str));
        mlflow.ask(&cmd);
    };
    delete(&all[..1]);
    let fewer = run(
        &root(),
        &["annotate", &format!("{o}/out"), "--mlflow", &url],
    );
    assert_eq!(fewer.code, 0, "{}", fewer.stderr);
    assert!(
        fewer.stderr.trim().ends_with(&format!(
            "; 1 trace(s) MLflow does not have left out: {}",
            all[0]
        )),
        "{}",
        fewer.stderr
    );
    delete(&all[1..]);
    let none = run(
        &root(),
        &["annotate", &format!("{o}/out"), "--mlflow", &url],
    );
    assert_eq!(none.code, 2, "{}", none.stderr);
    assert_eq!(
        none.stderr.trim(),
        format!(
            "error: MLflow at {url} has none of the {} trace(s) to annotate (was it fed these traces?)",
            all.len()
        )
    );
    let store = run(
        &root(),
        &[
            "annotate",
            &format!("{o}/out"),
            "--mlflow",
            "sqlite:///mlflow.db",
        ],
    );
    assert_eq!(store.code, 2);
    assert!(
        store
            .stderr
            .contains("--mlflow needs a tracking server's http:// URL"),
        "{}",
        store.stderr
    );
}

/// tests/producers/mlflow_server.py serving: a real MLflow tracking server, and one Python
/// with MLflow's client that runs commands for the test (a line each, tab-separated).
/// Stopped (stdin closed, waited for) on drop, a failing test included.
struct MlflowServer {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    output: BufReader<std::process::ChildStdout>,
    url: String,
}

impl MlflowServer {
    fn start(script: &Path) -> MlflowServer {
        let mut child = Command::new(venv_python("mlflow-server"))
            .arg(script)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        output.read_line(&mut first).unwrap();
        let url = first
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("mlflow server did not start: {first:?}"))
            .to_string();
        MlflowServer {
            child,
            input,
            output,
            url,
        }
    }

    fn ask(&mut self, args: &[&str]) {
        use std::io::Write;
        let input = self.input.as_mut().unwrap();
        writeln!(input, "{}", args.join("\t")).unwrap();
        input.flush().unwrap();
        let mut answer = String::new();
        self.output.read_line(&mut answer).unwrap();
        assert_eq!(answer.trim(), "ok", "mlflow_server.py {args:?}");
    }
}

impl Drop for MlflowServer {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = self.child.wait();
    }
}

#[test]
fn google_adk_with_its_own_spans() {
    // ADK's own telemetry (execute_tool / generate_content spans) with content capture
    // on. OpenInference's ADK instrumentor (1.0.5) is left out: on ADK 2.13 it emits no
    // LLM span, so no question, answer or tokens can be read (docs/importers.md).
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce_beside("adk", "adk_agent.py", d, &["--instrumentation", "adk"]);
    check_producer(
        d,
        &ids,
        "21 tool span(s) merged into 7 call(s), 12 model call(s)",
        true,
        Meta::Kept,
        &CLARIFIED,
    );
}

#[test]
fn pydantic_ai_with_pydantic_logfire() {
    // Logfire's SDK sets up its own tracer provider and instruments pydantic-ai and MCP;
    // its spans carry logfire's own attributes beside the GenAI ones.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let agent = d.join("agent");
    let ids = produce(
        "logfire",
        "pydantic_agent.py",
        d,
        &[
            "--instrumentation",
            "logfire",
            "--spans-file",
            agent.to_str().unwrap(),
        ],
        &[],
    );
    check_producer(
        d,
        &ids,
        "28 tool span(s) merged into 7 call(s), 12 model call(s)",
        true,
        Meta::Dropped,
        &CLARIFIED,
    );
}

#[test]
fn vercel_ai_sdk_typescript_agent() {
    // A TypeScript agent: the AI SDK's generateText tool loop, @ai-sdk/mcp over stdio,
    // @ai-sdk/otel on the OpenTelemetry JS SDK (the GenAI conventions).
    vercel_agent("genai");
}

#[test]
fn vercel_ai_sdk_typescript_agent_with_its_classic_ai_spans() {
    // The same agent with @ai-sdk/otel's LegacyOpenTelemetry: the SDK's own `ai.*` span
    // convention (ai.toolCall, ai.generateText.doGenerate), no gen_ai.operation.name.
    vercel_agent("legacy");
}

/// tests/producers/ts/agent.mjs with `--telemetry TELEMETRY`, checked as every producer.
fn vercel_agent(telemetry: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    assert!(
        root()
            .join("tests/producers/ts/node_modules/ai/package.json")
            .exists(),
        "tests/producers/ts/node_modules is missing: run scripts/setup.sh"
    );
    let mut c = Command::new("node");
    c.arg(root().join("tests/producers/ts/agent.mjs"));
    let spans = d.join("agent");
    let ids = produce_with(
        c,
        d,
        &[
            "--spans-file",
            spans.to_str().unwrap(),
            "--telemetry",
            telemetry,
        ],
        &[(
            "GC_SERVER_PYTHON",
            venv_python("producers").display().to_string(),
        )],
    );
    check_producer(
        d,
        &ids,
        "14 tool span(s) merged into 7 call(s), 12 model call(s)",
        true,
        Meta::Kept,
        &CLARIFIED,
    );
}

#[test]
fn official_mcp_sdk_client_with_openllmetry() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = produce(
        "openllmetry",
        "mcp_sdk_client.py",
        d,
        &["--spans-file", d.join("agent").to_str().unwrap()],
        &[],
    );
    let out = crate::import::import("otlp", &files(d, ".jsonl"), &[], &d.join("imp"));
    // Client and server spans of each call are one call; no model spans (no model ran).
    assert!(
        out.contains("merged into 7 call(s), 0 model call(s)"),
        "{out}"
    );
    let got = sql_csv(
        d,
        &[("steps", &d.join("imp/traces"))],
        "SELECT server, trace_id, step, kind, tool, arguments, result, is_error, as_of IS NOT NULL AS has_as_of, as_user, case_id \
         FROM steps WHERE kind = 'tool_result' OR tool = 'run_sql' ORDER BY trace_id, step",
    );
    let a = &ids["generic-emea-active"];
    let c = &ids["generic-bad-query"];
    for want in [
        format!("generic-warehouse,{a},2,tool_result,list_tables,,"),
        format!(
            "generic-warehouse,{a},5,tool_call,run_sql,\"{{\"\"sql\"\":\"\"SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at < '2026-07-01'\"\"}}\",,,false,fin.analyst.02,"
        ),
        format!(
            "generic-warehouse,{c},2,tool_result,run_sql,,\"\"\"Error executing tool run_sql: syntax error at or near 'SELEC'\"\"\",true,false,fin.analyst.02,"
        ),
        format!(
            "task-specific,{},2,tool_result,active_customer_count,,",
            ids["task-emea-active"]
        ),
    ] {
        assert!(got.contains(&want), "want {want} in\n{got}");
    }
    let with_as_of = got
        .lines()
        .filter(|l| l.contains(",tool_result,") && l.contains(",true,fin.analyst.02,"))
        .count();
    // OpenLLMetry's MCP instrumentation records a result's content, not its `_meta`:
    // the task tool's as_of (there) is not in the trace.
    assert_eq!(
        with_as_of, 4,
        "seven results: the error and the two task tools' without as_of:\n{got}"
    );
}

#[test]
fn spans_that_are_no_agent_and_cases_that_match_nothing_fail_loudly() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let out = Command::new(venv_python("producers"))
        .arg(root().join("tests/producers/plain_spans.py"))
        .arg(d.join("plain"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = run(
        &root(),
        &[
            "import",
            "otlp",
            d.join("plain.pb").to_str().unwrap(),
            "--out",
            d.join("o").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("plain.pb: no steps: 2 span(s), none a tool or model call (span names: GET /invoices, SELECT invoices; attribute keys: db.system.name, http.request.method, url.path)"),
        "{}",
        r.stderr
    );
    assert!(!d.join("o").exists());
    // Real traces, cases that name other traces: the server's spans alone carry no case
    // attribute, so nothing matches.
    produce(
        "producers",
        "pydantic_agent.py",
        d,
        &["--spans-file", d.join("agent").to_str().unwrap()],
        &[],
    );
    let proj = project(d, "0000000000000000000000000000dead");
    let server_only = d.join("server-generic-warehouse.pb");
    let r = run(
        &root(),
        &[
            "import",
            "otlp",
            server_only.to_str().unwrap(),
            "--cases",
            proj.join("cases.jsonl").to_str().unwrap(),
            "--out",
            d.join("o").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("none of the 2 trace(s) matched a case"),
        "{}",
        r.stderr
    );
    assert!(!d.join("o").exists());
    let r = run(
        &root(),
        &[
            "import",
            "otlp",
            d.join("agent.jsonl").to_str().unwrap(),
            "--case-from",
            "app.case",
            "--cases",
            proj.join("cases.jsonl").to_str().unwrap(),
            "--out",
            d.join("o").to_str().unwrap(),
        ],
    );
    // Server B's conversation carries groundcheck.case_id: one of four matches.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("3 trace(s) matched no case"),
        "{}",
        r.stdout
    );
    let r = run(
        &root(),
        &[
            "collect",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            "0.2",
            "--out",
            d.join("c").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("received no spans on http://127.0.0.1:"),
        "{}",
        r.stderr
    );
}

/// The length-prefixed requests of a captured file.
pub fn requests(path: &Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let n = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        out.push(data[at + 4..at + 4 + n].to_vec());
        at += 4 + n;
    }
    out
}

pub fn post(addr: &str, ctype: &str, body: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut r = String::new();
    let _ = s.read_to_string(&mut r);
    r
}

/// `collect --listen 127.0.0.1:0 ARGS…` started: the process, the rest of its stdout
/// (the summary it prints when it stops) and the OTLP/HTTP address it printed first.
fn start_collect(
    args: &[&str],
) -> (
    std::process::Child,
    std::io::Lines<BufReader<std::process::ChildStdout>>,
    String,
) {
    let mut collect = cmd(&root())
        .args(["collect", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(collect.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first.rsplit("http://").next().unwrap().trim().to_string();
    (collect, lines, addr)
}

#[test]
fn collect_takes_a_burst_in_any_order_a_dropped_client_and_a_bad_body() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cap = root().join("tests/fixtures/import/captured/pydantic-ai-genai");
    let proj = project(d, "ee3aa1c2b46af00c23345dcc5e3c4887");
    let cases = proj.join("cases.jsonl");
    let (mut collect, lines, addr) = start_collect(&[
        "--idle",
        "30",
        "--out",
        d.join("col").to_str().unwrap(),
        "--cases",
        cases.to_str().unwrap(),
    ]);
    // A client that announces a body and goes away.
    {
        use std::io::Write;
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(s, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100000\r\n\r\npartial").unwrap();
    }
    // A body that is no OTLP: 400, kept.
    let r = post(
        &addr,
        "application/x-protobuf",
        b"\x0a\xff\xff\xff\xffnot otlp",
    );
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    // Every request of the agent and both servers, from 8 clients at once, in no order.
    let mut bodies: Vec<Vec<u8>> = [
        "agent.pb",
        "server-generic-warehouse.pb",
        "server-task-specific.pb",
    ]
    .iter()
    .flat_map(|f| requests(&cap.join(f)))
    .collect();
    bodies.reverse();
    let n = bodies.len();
    std::thread::scope(|s| {
        for k in 0..8 {
            let (addr, bodies) = (&addr, &bodies);
            s.spawn(move || {
                for b in bodies.iter().skip(k).step_by(8) {
                    let r = post(addr, "application/x-protobuf", b);
                    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
                }
            });
        }
    });
    unsafe { libc::kill(collect.id() as i32, libc::SIGTERM) };
    assert!(collect.wait().unwrap().success());
    let summary: Vec<String> = lines.map_while(Result::ok).collect();
    let summary = summary.join("\n");
    assert!(summary.contains(&format!("collect: {n} request(s), 69 span(s), 4 trace(s) (2 tied to a case), 32 step(s) in 1 file(s)")), "{summary}");
    assert!(
        summary.contains("collect: 1 request(s) refused"),
        "{summary}"
    );
    assert_eq!(files(&d.join("col/collect/rejects"), ".body").len(), 1);
    // The same steps as importing the files.
    let inputs: Vec<String> = [
        "agent.pb",
        "server-generic-warehouse.pb",
        "server-task-specific.pb",
    ]
    .iter()
    .map(|f| cap.join(f).display().to_string())
    .collect();
    ok(
        &root(),
        &[
            &["import", "otlp", "--run-id", "collect"][..],
            &inputs.iter().map(String::as_str).collect::<Vec<_>>(),
            &[
                "--cases",
                proj.join("cases.jsonl").to_str().unwrap(),
                "--out",
                d.join("imp").to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    assert_eq!(
        steps(&proj, &d.join("col/traces")),
        steps(&proj, &d.join("imp/traces"))
    );
}

/// Past --memory, collect writes the traces that went longest without a span before
/// --idle is up, and says how many; the steps are those of importing the files.
#[test]
fn collect_writes_early_past_its_memory_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cap = root().join("tests/fixtures/import/captured/pydantic-ai-genai");
    let (mut collect, lines, addr) = start_collect(&[
        "--idle",
        "600",
        "--memory",
        "16K",
        "--out",
        d.join("col").to_str().unwrap(),
    ]);
    let files_in = [
        "agent.pb",
        "server-generic-warehouse.pb",
        "server-task-specific.pb",
    ];
    // One request (protobuf messages concatenated are one message: the repeated fields
    // append), so that no write falls between two requests of one trace.
    let body: Vec<u8> = files_in
        .iter()
        .flat_map(|f| requests(&cap.join(f)))
        .flatten()
        .collect();
    let r = post(&addr, "application/x-protobuf", &body);
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    // The writer looks every second: within a few, the traces are out though --idle is
    // ten minutes.
    let out = d.join("col/traces");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let written = || out.exists() && !files(&out, ".parquet").is_empty();
    while !written() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(written(), "nothing written early");
    unsafe { libc::kill(collect.id() as i32, libc::SIGTERM) };
    assert!(collect.wait().unwrap().success());
    let summary = lines.map_while(Result::ok).collect::<Vec<_>>().join("\n");
    assert!(
        summary.contains("69 span(s), 4 trace(s)")
            && summary.contains("trace(s) written before --idle was up, to stay within --memory")
            && !summary.contains("came after"),
        "{summary}"
    );
    let inputs: Vec<String> = files_in
        .iter()
        .map(|f| cap.join(f).display().to_string())
        .collect();
    let mut args = vec!["import", "otlp", "--run-id", "collect"];
    args.extend(inputs.iter().map(String::as_str));
    let imp = d.join("imp");
    args.extend(["--out", imp.to_str().unwrap()]);
    ok(&root(), &args);
    let proj = project(d, "ee3aa1c2b46af00c23345dcc5e3c4887");
    assert_eq!(steps(&proj, &out), steps(&proj, &d.join("imp/traces")));
}

/// One raw HTTP/1.1 exchange: `head` lines after the request line, then `body`; with
/// `cut`, the client stops writing before the body ends. The answer as text ("" when the
/// server closed without one); a 20 s read deadline keeps a hung server from hanging
/// the test.
fn raw_post(addr: &str, head: &[String], body: &[u8], cut: bool) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("collect stopped listening");
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let mut req = format!("POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for h in head {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    let _ = s.write_all(req.as_bytes());
    let _ = s.write_all(if cut { &body[..body.len() / 2] } else { body });
    if cut {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    let mut r = Vec::new();
    let _ = s.read_to_end(&mut r);
    String::from_utf8_lossy(&r).into_owned()
}

#[test]
fn collect_survives_a_structure_aware_fuzz_of_its_http_face() {
    // Issue #44's attack kit, kept: real OTLP requests (protobuf and JSON) with their
    // bytes mutated, under every content type and encoding, as gzip (valid and not),
    // chunked (well-formed and not), with lying or missing lengths, cut mid-body, and the
    // known killers (50,000 nested kvlists, a gzip bomb). Every request gets an answer
    // (200, 400, 411, 413 or 415) or, when the client itself broke the framing, a closed
    // connection; collect stays up, counts every 200 as a request and every 400/413 as
    // refused, takes the real traces after, and stops on SIGTERM with exit 0.
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cap = root().join("tests/fixtures/import/captured");
    let mut seeds: Vec<(bool, Vec<u8>)> = requests(&cap.join("pydantic-ai-genai/agent.pb"))
        .into_iter()
        .map(|b| (false, b))
        .collect();
    for line in std::fs::read_to_string(cap.join("openllmetry/agent.jsonl"))
        .unwrap()
        .lines()
    {
        seeds.push((true, line.as_bytes().to_vec()));
    }
    let mut collect = cmd(&root())
        .args([
            "collect",
            "--listen",
            "127.0.0.1:0",
            "--idle",
            "60",
            "--max-body-mib",
            "4",
            "--out",
            d.join("col").to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(collect.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first.rsplit("http://").next().unwrap().trim().to_string();
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let bomb = gz(&vec![0u8; 64 << 20]);
    let deep = groundcheck::synth::attack::deep_request(50_000);
    let mut m = crate::support::Mutator::new(0x9E37_79B9_7F4A_7C15);
    const TOKENS: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"\"",
        b"null",
        b"1e999",
        b"\x00\xff",
        b"\x0a\xff\xff\xff\xff\x0f",
    ];
    let (mut accepted, mut refused) = (0usize, 0usize);
    let rounds: usize = std::env::var("GROUNDCHECK_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(2000, |r: usize| r / 2);
    for i in 0..rounds {
        let (json, seed) = &seeds[m.below(seeds.len())];
        let mut body = match i % 23 {
            7 => deep.clone(),
            11 => bomb.clone(),
            _ => m.mutate(seed, TOKENS, 64, 32),
        };
        let pick = m.below(8);
        let ctype = match pick {
            0 => "text/plain".to_string(),
            1 => "application/x-protobuf; charset=\u{1}".to_string(),
            2 => String::new(),
            _ if *json => "application/json".to_string(),
            _ => "application/x-protobuf".to_string(),
        };
        let mut head = Vec::new();
        if !ctype.is_empty() {
            head.push(format!("Content-Type: {ctype}"));
        }
        let framing = m.below(10);
        if i % 23 != 11 && m.below(4) == 0 {
            body = gz(&body);
            head.push("Content-Encoding: gzip".into());
        } else if i % 23 == 11 || m.below(8) == 0 {
            head.push("Content-Encoding: gzip".into()); // the bomb, or a body that is no gzip
        }
        let mut cut = false;
        // Requests the client breaks itself (a control character in a header, bad
        // framing): HTTP's own 400, or a closed connection, is the answer then.
        let mut broken = pick == 1;
        match framing {
            0 => {
                head.push("Transfer-Encoding: chunked".into());
                let mut c = Vec::new();
                for part in body.chunks(1 + m.below(4096)) {
                    c.extend(format!("{:x}\r\n", part.len()).as_bytes());
                    c.extend(part);
                    c.extend(b"\r\n");
                }
                c.extend(b"0\r\n\r\n");
                body = c;
            }
            1 => {
                head.push("Transfer-Encoding: chunked".into());
                body = [b"zz\r\n".as_slice(), &body].concat();
                broken = true;
            }
            2 => {
                head.push(format!("Content-Length: {}", body.len() + 10));
                cut = true;
                broken = true;
            }
            3 => {} // no length: an empty body, the bytes after it ignored (Connection: close)
            _ => head.push(format!("Content-Length: {}", body.len())),
        }
        let r = raw_post(&addr, &head, &body, cut);
        assert!(
            collect.try_wait().unwrap().is_none(),
            "round {i}: collect died"
        );
        let status = r.get(9..12).unwrap_or("");
        match status {
            "200" => accepted += 1,
            "400" | "413" if !broken => refused += 1,
            "411" | "415" => {}
            // The client broke the framing: hyper answers (or closes) before the handler.
            _ if broken && (status.is_empty() || status == "400") => {}
            _ => panic!("round {i}: {head:?} got {r:?}"),
        }
    }
    // The real traces still go in.
    for b in requests(&cap.join("pydantic-ai-genai/agent.pb")) {
        let r = post(&addr, "application/x-protobuf", &b);
        assert!(r.starts_with("HTTP/1.1 200"), "{r}");
        accepted += 1;
    }
    unsafe { libc::kill(collect.id() as i32, libc::SIGTERM) };
    let status = collect.wait().unwrap();
    let summary: Vec<String> = lines.map_while(Result::ok).collect();
    let summary = summary.join("\n");
    assert!(status.success(), "{summary}");
    assert!(
        summary.contains(&format!("collect: {accepted} request(s), ")),
        "{accepted} accepted: {summary}"
    );
    if refused > 0 {
        assert!(
            summary.contains(&format!("collect: {refused} request(s) refused")),
            "{refused} refused: {summary}"
        );
    }
}

/// Raw bytes as a gRPC request message: what no typed client would send.
#[derive(Clone, Default)]
struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;
    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }
    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(
        &mut self,
        item: Vec<u8>,
        dst: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        use bytes::BufMut;
        dst.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(
        &mut self,
        src: &mut tonic::codec::DecodeBuf<'_>,
    ) -> Result<Option<Vec<u8>>, tonic::Status> {
        use bytes::Buf;
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

#[test]
fn collect_survives_a_fuzz_of_its_grpc_face() {
    // The same attack kit over OTLP/gRPC: real export requests with their bytes mutated,
    // gzip-compressed or not, the 50,000-level nesting and a message over the size cap.
    // Every call gets OK, INVALID_ARGUMENT (kept and counted as refused, as over HTTP)
    // or RESOURCE_EXHAUSTED; collect stays up and stops on SIGTERM with exit 0.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cap = root().join("tests/fixtures/import/captured/pydantic-ai-genai/agent.pb");
    let seeds = requests(&cap);
    let mut collect = cmd(&root())
        .args([
            "collect",
            "--listen",
            "127.0.0.1:0",
            "--grpc",
            "127.0.0.1:0",
        ])
        .args(["--idle", "60", "--max-body-mib", "4", "--out"])
        .arg(d.join("col"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(collect.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let grpc = first
        .strip_prefix("collect: OTLP/gRPC on ")
        .unwrap_or_else(|| panic!("{first}"))
        .trim()
        .to_string();
    let _http = lines.next().unwrap().unwrap();
    let rounds: usize = std::env::var("GROUNDCHECK_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(1000, |r: usize| r / 5);
    let deep = groundcheck::synth::attack::deep_request(50_000);
    let big = vec![0x0a_u8; 5 << 20];
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (accepted, refused) = rt.block_on(async {
        let channel = tonic::transport::Channel::from_shared(format!("http://{grpc}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut m = crate::support::Mutator::new(0x2F6B_3C1A_9D0E_4417);
        const TOKENS: &[&[u8]] = &[b"\x0a", b"\x12", b"\x1a", b"\xff\xff\xff\xff\x0f", b"\x00"];
        let (mut accepted, mut refused) = (0usize, 0usize);
        for i in 0..rounds {
            let body = match i % 29 {
                5 => deep.clone(),
                13 => big.clone(),
                _ => {
                    let k = m.below(seeds.len());
                    m.mutate(&seeds[k], TOKENS, 64, 32)
                }
            };
            let mut client =
                tonic::client::Grpc::new(channel.clone()).max_encoding_message_size(16 << 20);
            if m.below(3) == 0 {
                client = client.send_compressed(tonic::codec::CompressionEncoding::Gzip);
            }
            client.ready().await.unwrap();
            let path = tonic::codegen::http::uri::PathAndQuery::from_static(
                "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            );
            let r = tokio::time::timeout(
                std::time::Duration::from_secs(20),
                client.unary(tonic::Request::new(body), path, RawCodec),
            )
            .await
            .unwrap_or_else(|_| panic!("round {i}: no answer in 20 s"));
            match r {
                Ok(_) => accepted += 1,
                Err(s) if s.code() == tonic::Code::InvalidArgument => refused += 1,
                Err(s) if s.code() == tonic::Code::ResourceExhausted => {}
                Err(s) => panic!("round {i}: {s:?}"),
            }
        }
        (accepted, refused)
    });
    assert!(collect.try_wait().unwrap().is_none(), "collect died");
    unsafe { libc::kill(collect.id() as i32, libc::SIGTERM) };
    let status = collect.wait().unwrap();
    let summary: Vec<String> = lines.map_while(Result::ok).collect();
    let summary = summary.join("\n");
    assert!(status.success(), "{summary}");
    assert!(
        summary.contains(&format!("collect: {accepted} request(s), ")),
        "{accepted} accepted: {summary}"
    );
    assert!(refused > 0, "the fuzz refused nothing: {summary}");
    assert!(
        summary.contains(&format!("collect: {refused} request(s) refused")),
        "{refused} refused: {summary}"
    );
}

/// How the agent reaches the gateway.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Face {
    Stdio,
    Http,
}

/// A `groundcheck gateway --listen 127.0.0.1:0` in front of `server_cmd`; its URL.
pub struct Listening {
    pub child: std::process::Child,
    pub url: String,
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Listening {
    pub fn start(
        out: &Path,
        args: &[&str],
        server_cmd: &[String],
        env: &[(&str, &str)],
    ) -> Listening {
        let mut c = Command::new(env!("CARGO_BIN_EXE_groundcheck"));
        c.args(["gateway", "--listen", "127.0.0.1:0", "--out"])
            .arg(out)
            .args(args)
            // The server gets an allow-listed environment: pass the test's own variables.
            .args(env.iter().flat_map(|(k, _)| ["--pass-env", k]))
            .args(if server_cmd.is_empty() {
                &[][..]
            } else {
                &["--"][..]
            })
            .args(server_cmd)
            .stdin(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        let err = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let first = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the gateway prints its address");
        let url = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        Listening {
            child,
            url,
            stderr: rx,
        }
    }

    pub fn child_alive(&self) -> bool {
        // try_wait needs &mut; /proc tells without reaping.
        std::path::Path::new(&format!("/proc/{}", self.child.id())).exists()
            && !std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
                .unwrap_or_default()
                .contains(") Z ")
    }

    /// SIGINT, then its exit code and everything it printed on stderr.
    pub fn stop(mut self) -> (i32, String) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let child = &mut self.child;
        eventually("the gateway to stop on SIGINT", || {
            child.try_wait().unwrap().is_some()
        });
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        while let Ok(l) = self.stderr.recv_timeout(std::time::Duration::from_secs(5)) {
            err.push_str(&l);
            err.push('\n');
        }
        (status.code().unwrap_or(-1), err)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `done` (readiness, not speed: up to 600 tries 50 ms apart), else fails
/// naming what did not happen.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..600 {
        if done() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("waited for {what} in vain");
}

/// The server command for a script in tests/producers (Python) or tests/mcp (`.mjs`,
/// the TypeScript SDK).
fn server_cmd(server: &str) -> Vec<String> {
    if server.ends_with(".mjs") {
        return vec![
            "node".to_string(),
            root().join("tests/mcp").join(server).display().to_string(),
        ];
    }
    vec![
        venv_python("producers").display().to_string(),
        root()
            .join("tests/producers")
            .join(server)
            .display()
            .to_string(),
    ]
}

/// Runs a client script (`client` in `venv`) with `calls`; its JSON lines.
fn play(venv: &str, client: &str, calls: &str, cmd: &[String]) -> Vec<Value> {
    play_env(venv, client, calls, cmd, &[])
}

fn play_env(
    venv: &str,
    client: &str,
    calls: &str,
    cmd: &[String],
    env: &[(&str, &str)],
) -> Vec<Value> {
    let o = Command::new(venv_python(venv))
        .arg(root().join("tests/producers").join(client))
        .arg(calls)
        .arg("--")
        .args(cmd)
        .env("GC_SERVER_NAME", "generic-warehouse")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{client} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Runs a client script (`client` in `venv`) with `calls` against `server` directly and
/// through the gateway over `face`, with options for the gateway; returns (direct,
/// through, gateway out dir).
fn through_gateway_with(
    d: &Path,
    face: Face,
    venv: &str,
    client: &str,
    server: &str,
    calls: &str,
    gateway_args: &[&str],
) -> (Vec<Value>, Vec<Value>, PathBuf) {
    let out = d.join(format!(
        "gw-{face:?}-{venv}-{client}-{server}-{}",
        gateway_args.join("").replace(['^', '=', '*'], "")
    ));
    let direct = play(venv, client, calls, &server_cmd(server));
    let through = match face {
        Face::Stdio => {
            let mut gw = vec![
                env!("CARGO_BIN_EXE_groundcheck").to_string(),
                "gateway".into(),
                "--out".into(),
                out.display().to_string(),
            ];
            gw.extend(gateway_args.iter().map(|a| a.to_string()));
            gw.extend(["--pass-env".into(), "GC_SERVER_NAME".into()]);
            gw.push("--".into());
            gw.extend(server_cmd(server));
            play(venv, client, calls, &gw)
        }
        Face::Http => {
            let gw = Listening::start(
                &out,
                gateway_args,
                &server_cmd(server),
                &[("GC_SERVER_NAME", "generic-warehouse")],
            );
            let through = play(venv, client, calls, std::slice::from_ref(&gw.url));
            let (_, err) = gw.stop();
            // fastmcp probes with server/discover first (the stateless session), then
            // opens a session with initialize where the server is older.
            assert!(err.contains("session(s) served"), "{err}");
            through
        }
    };
    (direct, through, out)
}

const STALE: &str = "Schema mismatch: expected parameter 'sql', found 'query'. Tool blocked. One retry allowed: call 'run_sql' again with arguments that match its current inputSchema.";

#[test]
fn gateway_speaks_each_protocol_version_of_the_official_sdks() {
    let tmp = tempfile::tempdir().unwrap();
    let calls = r#"[{"tool":"run_sql","arguments":{"sql":"SELECT COUNT(*) FROM customers"}},{"tool":"run_sql","arguments":{"query":"SELECT COUNT(*) FROM customers"}}]"#;
    // fastmcp 4's client speaks 2026-07-28 (server/discover, the _meta envelope,
    // resultType); the 2.x and 1.x SDK sessions negotiate 2025-11-25 with initialize.
    // Over stdio and over the gateway's HTTP face (the SDKs' streamable-HTTP clients:
    // sessions for 2025-11-25, the stateless session for 2026-07-28).
    for (face, venv, client) in [Face::Stdio, Face::Http].into_iter().flat_map(|f| {
        [
            (f, "producers", "fastmcp_client.py"),
            (f, "producers", "mcp_client.py"),
            (f, "openllmetry", "mcp_client.py"),
        ]
    }) {
        let (direct, through, out) = through_gateway_with(
            tmp.path(),
            face,
            venv,
            client,
            "warehouse_server.py",
            calls,
            &[],
        );
        let what = format!("{face:?} {venv}/{client}");
        // A valid call gets the server's answer unchanged (as_of aside: a new call).
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(s) = v["structured"].as_object_mut() {
                s.remove("as_of");
            }
            v.as_object_mut().unwrap().remove("text");
            v
        };
        assert_eq!(strip(&through[0]), strip(&direct[0]), "{what}");
        assert_eq!(through[0]["is_error"], false, "{what}");
        // A stale call gets seed 002's corrective error, isError intact, from the gateway.
        assert_eq!(through[1]["is_error"], true, "{what}: {:?}", through[1]);
        assert_eq!(through[1]["text"], STALE, "{what}");
        assert_ne!(direct[1]["text"], STALE, "{what}");
        assert_eq!(through[2]["tools"], direct[2]["tools"], "{what}");
        // The steps name the server (2026-07-28 names it in server/discover's _meta), and
        // the message log has the refused call: import mcp-log gives the same calls.
        let steps_file = files(&out.join("gateway"), ".steps.jsonl").pop().unwrap();
        let msgs = files(&out.join("gateway"), ".messages.jsonl")
            .pop()
            .unwrap();
        ok(
            &root(),
            &[
                "import",
                "mcp-log",
                &msgs,
                "--out",
                out.join("imp").to_str().unwrap(),
            ],
        );
        let q = "SELECT server, kind, tool, arguments, is_error FROM steps WHERE kind IN ('tool_call', 'tool_result') ORDER BY step";
        let native = sql_csv(tmp.path(), &[("steps", Path::new(&steps_file))], q);
        let imported = sql_csv(tmp.path(), &[("steps", &out.join("imp/traces"))], q);
        assert_eq!(imported, native, "{what}");
        assert_eq!(
            native
                .lines()
                .filter(|l| l.starts_with("generic-warehouse,"))
                .count(),
            4,
            "{what}: {native}"
        );
    }
}

/// Issue #45 with the official client: fastmcp 4's (2026-07-28, no sessions) through the
/// gateway's HTTP face. Agent A's two stale calls disable run_sql for A only: agent B, a
/// different client program (its client info), and agent D, the same program as C but
/// naming itself with the Groundcheck-Agent header, get their own counts.
#[test]
fn sessionless_agents_keep_their_own_strikes_through_the_http_face() {
    let tmp = tempfile::tempdir().unwrap();
    let gw = Listening::start(
        &tmp.path().join("gw"),
        &[],
        &server_cmd("warehouse_server.py"),
        &[("GC_SERVER_NAME", "generic-warehouse")],
    );
    let url = std::slice::from_ref(&gw.url);
    let valid = r#"[{"tool":"run_sql","arguments":{"sql":"SELECT COUNT(*) FROM customers"}}]"#;
    let stale2 = r#"[{"tool":"run_sql","arguments":{"query":"SELECT 1"}},{"tool":"run_sql","arguments":{"query":"SELECT 1"}}]"#;
    let agent = |calls: &str, env: &[(&str, &str)]| -> Vec<Value> {
        play_env("producers", "fastmcp_client.py", calls, url, env)
    };
    let disabled = |v: &Value| {
        v["text"]
            .as_str()
            .unwrap_or("")
            .contains("disabled for this session")
    };
    let a = agent(stale2, &[("GC_CLIENT_NAME", "agent-a")]);
    assert_eq!(a[0]["text"], STALE, "{a:?}");
    assert!(
        a[1]["text"].as_str().unwrap().contains("is now disabled"),
        "{a:?}"
    );
    let b = agent(valid, &[("GC_CLIENT_NAME", "agent-b")]);
    assert_eq!(b[0]["is_error"], false, "B is not A: {b:?}");
    let a = agent(valid, &[("GC_CLIENT_NAME", "agent-a")]);
    assert!(disabled(&a[0]), "A's tool stays disabled for A: {a:?}");
    let same = [("GC_CLIENT_NAME", "agent-cd")];
    let c = agent(stale2, &[same[0], ("GC_AGENT_HEADER", "c")]);
    assert!(
        c[1]["text"].as_str().unwrap().contains("is now disabled"),
        "{c:?}"
    );
    let d = agent(valid, &[same[0], ("GC_AGENT_HEADER", "d")]);
    assert_eq!(
        d[0]["is_error"], false,
        "D names itself apart from C: {d:?}"
    );
    let (code, err) = gw.stop();
    assert_eq!(code, 1, "sessions ended with a tool disabled: {err}");
}

/// Issue #45 with the official client: fastmcp 4's Client sends an integer wider than 64
/// bits; through the gateway (stdio and HTTP faces) the server gets it exactly and the
/// client gets it back exactly, as without the gateway (re-serialised, it was a double:
/// `1.2345678901234568e+29`).
#[test]
fn a_wide_integer_crosses_the_gateway_exactly_with_the_official_client() {
    let tmp = tempfile::tempdir().unwrap();
    let wide = "123456789012345678901234567890";
    let calls = format!(r#"[{{"tool":"work","arguments":{{"n":{wide}}}}}]"#);
    let raw = |cmd: &[String]| -> String {
        let o = Command::new(venv_python("producers"))
            .arg(root().join("tests/producers/fastmcp_client.py"))
            .arg(&calls)
            .arg("--")
            .args(cmd)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let direct = raw(&server_cmd("burst_server.py"));
    assert!(
        direct.contains(&format!("\"structured\": {{\"n\": {wide}}}")),
        "{direct}"
    );
    let mut stdio = vec![
        env!("CARGO_BIN_EXE_groundcheck").to_string(),
        "gateway".into(),
        "--out".into(),
        tmp.path().join("stdio").display().to_string(),
        "--".into(),
    ];
    stdio.extend(server_cmd("burst_server.py"));
    assert_eq!(raw(&stdio), direct, "stdio face");
    let gw = Listening::start(
        &tmp.path().join("http"),
        &[],
        &server_cmd("burst_server.py"),
        &[],
    );
    assert_eq!(raw(std::slice::from_ref(&gw.url)), direct, "HTTP face");
    let (code, err) = gw.stop();
    assert_eq!(code, 0, "{err}");
}

/// Issue #45's load: 10 agents x 100 concurrent calls through one HTTP face, fastmcp 4's
/// Client (2026-07-28, sessionless, each its own client info) and the MCP SDK's sessions
/// (2025-11-25) mixed, agent 0 sending every call with a parameter the schema lacks.
/// Every request is answered once; every other agent's calls are answered with their own
/// n (no cross-talk); agent 0's are all refused, and its tool is disabled for it alone.
#[test]
fn ten_mixed_agents_at_once_each_get_their_own_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("gw");
    let gw = Listening::start(&out, &["-q"], &server_cmd("burst_server.py"), &[]);
    let o = Command::new(venv_python("producers"))
        .arg(root().join("tests/producers/mixed_load_client.py"))
        .args(["10", "100", "--", &gw.url])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "mixed_load_client.py failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut lines: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let total = lines.pop().expect("a summary line");
    assert_eq!(total["answered"], 1000, "{total}");
    let mut seen = std::collections::BTreeSet::new();
    for l in &lines {
        assert!(seen.insert(l["n"].as_u64().unwrap()), "answered twice: {l}");
        if l["agent"] == 0 {
            let e = l["error"].as_str().unwrap_or_default();
            assert!(
                l["ok"] == false && (e.starts_with("Schema mismatch") || e.contains("disabled")),
                "{l}"
            );
        } else {
            assert_eq!(l["ok"], true, "{l}");
            assert_eq!(l["answer"], l["n"], "cross-talk: {l}");
        }
    }
    let (code, err) = gw.stop();
    assert_eq!(
        code, 1,
        "agent 0's session ended with its tool disabled: {err}"
    );
    // Each gateway session's trace holds one agent's calls, and every agent's calls are
    // recorded. Not one trace per agent: under load the SDK's `server/discover` probe can
    // time out client-side while the session's server starts, and the client falls back
    // to `initialize` (mcp/client/_probe.py), a second session for that agent.
    let per_agent = sql_csv(
        tmp.path(),
        &[("steps", &out.join("traces"))],
        "WITH c AS (SELECT trace_id, coalesce(json_get_int(arguments, 'n'), \
         json_get_int(arguments, 'number')) / 100000 AS agent FROM steps WHERE kind = 'tool_call') \
         SELECT (SELECT count(*) FROM (SELECT trace_id FROM c GROUP BY trace_id \
           HAVING count(DISTINCT agent) > 1)) AS mixed, count(DISTINCT agent) AS agents, \
           count(*) AS calls FROM c",
    );
    assert_eq!(per_agent, "mixed,agents,calls\n0,10,1000\n", "{err}");
    eprintln!(
        "10 agents x 100 calls through the HTTP face: p50 {} ms, p99 {} ms",
        total["p50_ms"], total["p99_ms"]
    );
}

#[test]
fn gateway_holds_calls_after_list_changed_until_the_new_schema_is_in() {
    let tmp = tempfile::tempdir().unwrap();
    // search(query) until `release` re-registers it as search(search_query) and sends
    // list_changed; the next call, sent at once, must be checked against the new schema.
    let calls = r#"[{"tool":"search","arguments":{"query":"refund"}},{"tool":"release","arguments":{}},{"tool":"search","arguments":{"query":"refund"}}]"#;
    for (face, client) in [
        (Face::Stdio, "fastmcp_client.py"),
        (Face::Http, "fastmcp_client.py"),
        (Face::Http, "mcp_client.py"),
    ] {
        let (direct, through, _) = through_gateway_with(
            tmp.path(),
            face,
            "producers",
            client,
            "evolving_server.py",
            calls,
            &[],
        );
        race_checks(&direct, &through);
    }
}

fn race_checks(direct: &[Value], through: &[Value]) {
    assert_eq!(through[0]["structured"]["count"], 1);
    assert_eq!(through[1]["is_error"], false);
    assert_eq!(
        through[2]["text"],
        "Schema mismatch: expected parameter 'search_query', found 'query'. Tool blocked. One retry allowed: call 'search' again with arguments that match its current inputSchema."
    );
    assert_eq!(through[2]["is_error"], true);
    // Without the gateway the server itself saw the stale call.
    assert!(
        direct[2]["text"]
            .as_str()
            .unwrap()
            .contains("Unexpected keyword argument"),
        "{:?}",
        direct[2]
    );
}

#[test]
fn gateway_refuses_tools_outside_the_clients_version_range() {
    let tmp = tempfile::tempdir().unwrap();
    let calls = r#"[{"tool":"search","arguments":{"query":"refund"}}]"#;
    // fastmcp lists search 3.0.0 (as _meta.fastmcp.version); a client built for ^2.0.0
    // gets seed 002's error, one built for ^3.0.0 the answer. Over stdio and HTTP.
    for face in [Face::Stdio, Face::Http] {
        let (direct, old, _) = through_gateway_with(
            tmp.path(),
            face,
            "producers",
            "fastmcp_client.py",
            "versioned_server.py",
            calls,
            &["--client-range", "search=^2.0.0"],
        );
        assert_eq!(old[0]["is_error"], true, "{face:?}");
        assert_eq!(
            old[0]["text"],
            "Tool 'search': schema version mismatch, expected ^2.0.0, got 3.0.0. Tool blocked.",
            "{face:?}"
        );
        let (_, new, _) = through_gateway_with(
            tmp.path(),
            face,
            "producers",
            "fastmcp_client.py",
            "versioned_server.py",
            calls,
            &["--client-range", "*=^3.0.0"],
        );
        assert_eq!(new[0], direct[0], "{face:?}");
        assert_eq!(new[0]["is_error"], false, "{face:?}");
    }
}

#[test]
fn gateway_relists_a_server_that_changes_without_telling() {
    let tmp = tempfile::tempdir().unwrap();
    // The same rename with no list_changed: --relist-every finds it before the next call.
    let calls = r#"[{"tool":"release","arguments":{}},{"sleep":1.5},{"tool":"search","arguments":{"query":"refund"}}]"#;
    for face in [Face::Stdio, Face::Http] {
        let (_, through, out) = through_gateway_with(
            tmp.path(),
            face,
            "producers",
            "fastmcp_client.py",
            "silent_server.py",
            calls,
            &["--relist-every", "0.3"],
        );
        assert_eq!(through[0]["is_error"], false, "{face:?}: {through:?}");
        assert_eq!(
            through[1]["text"],
            "Schema mismatch: expected parameter 'search_query', found 'query'. Tool blocked. One retry allowed: call 'search' again with arguments that match its current inputSchema.",
            "{face:?}"
        );
        let msgs: String = files(&out.join("gateway"), ".messages.jsonl")
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        assert!(!msgs.contains("list_changed"), "the server said nothing");
    }
}

/// Issue #45 with a real server: fastmcp 4 with its cache hint (`cache_ttl=1`: every
/// 2026-07-28 list result carries `ttlMs: 1000`) renames `query` to `search_query`
/// without list_changed. Through the gateway (its interval re-list off), the call after
/// the list expired waits for a fresh list and is refused before the server runs it;
/// with the list still fresh (`cache_ttl=60`) the call goes to the server, as the server
/// allowed (fastmcp then refuses the unknown argument itself). Without a hint the SDK
/// says `ttlMs: 0`, immediately stale: every call is checked against a fresh list.
#[test]
fn a_list_past_its_ttl_is_read_again_before_the_next_call() {
    let tmp = tempfile::tempdir().unwrap();
    let calls = r#"[{"tool":"search","arguments":{"query":"refund"}},{"tool":"release","arguments":{}},{"sleep":1.5},{"tool":"search","arguments":{"query":"refund"}}]"#;
    for ttl in ["1", "60"] {
        let out = tmp.path().join(format!("ttl-{ttl}"));
        let mut gw = vec![
            env!("CARGO_BIN_EXE_groundcheck").to_string(),
            "gateway".into(),
            "--out".into(),
            out.display().to_string(),
            "--relist-every".into(),
            "0".into(),
            "--pass-env".into(),
            "GC_*".into(),
            "--".into(),
        ];
        gw.extend(server_cmd("evolving_server.py"));
        let env = [("GC_SILENT", "1"), ("GC_CACHE_TTL", ttl)];
        let through = play_env("producers", "fastmcp_client.py", calls, &gw, &env);
        assert_eq!(through[0]["is_error"], false, "{through:?}");
        let last = through[2]["text"].as_str().unwrap_or_default();
        if ttl == "1" {
            assert!(
                last.starts_with(
                    "Schema mismatch: expected parameter 'search_query', found 'query'."
                ),
                "{through:?}"
            );
            let events = std::fs::read_to_string(
                files(&out.join("gateway"), ".events.jsonl").pop().unwrap(),
            )
            .unwrap();
            assert!(events.contains("\"list_expired\""), "{events}");
        } else {
            assert!(
                !last.starts_with("Schema mismatch")
                    && last.contains("unexpected_keyword_argument"),
                "the server ran it: {through:?}"
            );
        }
    }
}

#[test]
fn gateway_replaces_a_silent_empty_result_after_an_unannounced_change() {
    let tmp = tempfile::tempdir().unwrap();
    // A TypeScript SDK server renames `query` to `search_query` without list_changed
    // (and there is no --relist-every); its zod schema drops `query` and v2 answers an
    // empty result (seed 002's silent failure). The gateway holds the empty answer,
    // re-lists, and sends the corrective error instead. A valid call with an empty
    // answer passes as it came.
    let calls = r#"[{"tool":"release","arguments":{}},{"tool":"search","arguments":{"query":"refund"}},{"tool":"search","arguments":{"search_query":""}}]"#;
    for (face, client) in [
        (Face::Stdio, "mcp_client.py"),
        (Face::Http, "mcp_client.py"),
        (Face::Http, "fastmcp_client.py"),
    ] {
        let (direct, through, out) = through_gateway_with(
            tmp.path(),
            face,
            "producers",
            client,
            "silent_server.mjs",
            calls,
            &[],
        );
        assert_eq!(
            direct[1]["is_error"], false,
            "the server alone says nothing"
        );
        assert_eq!(direct[1]["structured"]["count"], 0);
        assert_eq!(through[1]["is_error"], true, "{face:?}: {through:?}");
        assert_eq!(
            through[1]["text"],
            "Schema mismatch: expected parameter 'search_query', found 'query'. Tool blocked. One retry allowed: call 'search' again with arguments that match its current inputSchema.",
            "{face:?}"
        );
        assert_eq!(through[2], direct[2], "{face:?}");
        assert_eq!(through[3]["tools"], direct[3]["tools"], "{face:?}");
        let events: String = files(&out.join("gateway"), ".events.jsonl")
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        let replaced: Vec<Value> = events
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["event"] == "empty_result_replaced")
            .collect();
        assert_eq!(replaced.len(), 1, "{face:?}: {events}");
        assert_eq!(
            replaced[0]["server_answer"]["result"]["structuredContent"]["count"],
            0
        );
    }
}

/// Runs burst_client.py: `sessions` x `calls` concurrent work(n) calls to `cmd`.
fn burst(sessions: usize, calls: usize, cmd: &[String]) -> (Vec<Value>, Value) {
    let o = Command::new(venv_python("producers"))
        .arg(root().join("tests/producers/burst_client.py"))
        .args([sessions.to_string(), calls.to_string(), "2".to_string()])
        .arg("--")
        .args(cmd)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "burst_client.py failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut lines: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let total = lines.pop().expect("a summary line");
    (lines, total)
}

/// Every call got exactly one answer; answers carry their own n; failures are the
/// gateway's answer for a dead server; the steps have one call and one result per call.
fn check_burst(lines: &[Value], total: &Value, out: &Path, died: bool) {
    assert_eq!(total["answered"], total["calls"], "{total}");
    assert_eq!(total["session_errors"], serde_json::json!([]), "{total}");
    let mut seen = std::collections::BTreeSet::new();
    let mut failed = 0;
    for l in lines {
        assert!(seen.insert(l["n"].as_u64().unwrap()), "answered twice: {l}");
        if l["ok"] == true {
            assert_eq!(l["answer"], l["n"], "{l}");
        } else {
            failed += 1;
            let e = l["error"].as_str().unwrap();
            assert!(
                e.contains("the server exited with status 3"),
                "not the gateway's answer: {l}"
            );
        }
    }
    assert_eq!(died, failed > 0, "{failed} failed");
    let mut calls = 0;
    for f in files(&out.join("gateway"), ".steps.jsonl") {
        let mut per_call: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for l in std::fs::read_to_string(&f).unwrap().lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            per_call
                .entry(v["call_id"].as_str().unwrap().to_string())
                .or_default()
                .push(v["kind"].as_str().unwrap().to_string());
        }
        for (id, kinds) in &per_call {
            assert_eq!(kinds, &["tool_call", "tool_result"], "{f}: call {id}");
        }
        calls += per_call.len();
    }
    assert_eq!(calls as u64, total["calls"].as_u64().unwrap());
}

#[test]
fn gateway_answers_every_call_of_a_burst_once_even_when_the_server_dies() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for die_after in [None, Some("100")] {
        let env: Vec<(&str, &str)> = die_after.map(|k| ("GC_DIE_AFTER", k)).into_iter().collect();
        // Over HTTP: 4 sessions through one gateway, 250 concurrent calls each.
        let out = d.join(format!("http-{die_after:?}"));
        let gw = Listening::start(&out, &["-q"], &server_cmd("burst_server.py"), &env);
        let (lines, total) = burst(4, 250, std::slice::from_ref(&gw.url));
        let (code, err) = gw.stop();
        assert_eq!(code, 0, "{err}");
        check_burst(&lines, &total, &out, die_after.is_some());
        // Over stdio: 4 gateways, one per session.
        let out = d.join(format!("stdio-{die_after:?}"));
        let mut cmd = vec![
            "env".to_string(),
            format!("GC_DIE_AFTER={}", die_after.unwrap_or("0")),
            env!("CARGO_BIN_EXE_groundcheck").to_string(),
            "gateway".into(),
            "-q".into(),
            "--pass-env".into(),
            "GC_DIE_AFTER".into(),
            "--out".into(),
            out.display().to_string(),
            "--".into(),
        ];
        cmd.extend(server_cmd("burst_server.py"));
        let (lines, total) = burst(4, 250, &cmd);
        check_burst(&lines, &total, &out, die_after.is_some());
    }
}

/// A request to the gateway's face as it goes on the wire, body included.
fn raw_request(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req += &format!("{k}: {v}\r\n");
    }
    req + "\r\n" + body
}

/// One raw HTTP exchange with the gateway's face: the status line, the headers (lower
/// case) and the body as read until the server closes or `until` shows up in it.
fn exchange(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
    until: &str,
) -> (u16, String, String) {
    let (status, head, body, _) = exchange_ended(url, method, headers, body, until);
    (status, head, body)
}

/// `exchange`, and whether the answer ended (the server closed, or `until` came) rather
/// than the 20 s read deadline passing.
fn exchange_ended(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
    until: &str,
) -> (u16, String, String, bool) {
    use std::io::{Read, Write};
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    s.write_all(raw_request(&addr, method, headers, body).as_bytes())
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let ended = loop {
        match s.read(&mut buf) {
            Ok(0) => break true,
            Err(e) => {
                break !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
            }
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        if !until.is_empty() && String::from_utf8_lossy(&got).contains(until) {
            break true;
        }
    };
    let text = String::from_utf8_lossy(&got).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_lowercase(), body.to_string(), ended)
}

/// Issue #44: a stream belongs to its session. Event ids cannot be guessed, a session's
/// stream resumes only with its session id, a resume never cuts the connection still
/// reading the stream, and the number of sessions is capped.
#[test]
fn gateway_http_streams_belong_to_their_session_and_sessions_are_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let gw = Listening::start(
        &tmp.path().join("gw"),
        &["--max-sessions", "2"],
        &server_cmd("burst_server.py"),
        &[],
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let version = ("Mcp-Protocol-Version", "2025-11-25");
    let (code, head, body) = exchange(&gw.url, "POST", &[], init, "\"result\"");
    assert_eq!(code, 200, "{head}{body}");
    let sid = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .trim()
        .to_string();
    let event_id = body
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("an event id")
        .trim()
        .to_string();
    let stream: u64 = event_id.split('-').next().unwrap().parse().unwrap();
    assert!(
        stream > 1_000_000,
        "stream ids are not a counter: {event_id}"
    );
    // Another client, without the session's id, cannot replay the stream, nor guess one.
    for last in [event_id.as_str(), "1-0", "2-0"] {
        let (code, _, body) = exchange(&gw.url, "GET", &[("Last-Event-ID", last), version], "", "");
        assert_eq!(code, 404, "{last}: {body}");
        assert!(!body.contains("\"result\""), "{body}");
    }
    // A second session is allowed; a third is over --max-sessions 2.
    let (code, head2, _) = exchange(&gw.url, "POST", &[], init, "\"result\"");
    assert_eq!(code, 200, "{head2}");
    let (code, _, body) = exchange(&gw.url, "POST", &[], init, "");
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("--max-sessions"), "{body}");
    // The session's own client resumes its finished stream with its id.
    let sid_h = ("Mcp-Session-Id", sid.as_str());
    let notified = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        exchange(&gw.url, "POST", &[sid_h, version], notified, "").0,
        202
    );
    // A slow call: its stream stays open while the call runs.
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":1.5}}}"#;
    let url = gw.url.clone();
    let sid2 = sid.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::{BufRead, Write};
        let addr = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_string();
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let headers = [
            ("Mcp-Session-Id", sid2.as_str()),
            ("Mcp-Protocol-Version", "2025-11-25"),
        ];
        s.write_all(raw_request(&addr, "POST", &headers, call).as_bytes())
            .unwrap();
        let mut lines = std::io::BufReader::new(s).lines();
        let mut all = String::new();
        let mut sent = false;
        while let Some(Ok(l)) = lines.next() {
            if !sent && let Some(id) = l.strip_prefix("id: ") {
                tx.send(id.trim().to_string()).unwrap();
                sent = true;
            }
            all += &l;
            all.push('\n');
        }
        all
    });
    let live = rx.recv_timeout(std::time::Duration::from_secs(20)).unwrap();
    // Resuming the stream its owner still reads is refused, and the owner keeps it.
    let (code, _, body) = exchange(
        &gw.url,
        "GET",
        &[("Last-Event-ID", &live), sid_h, version],
        "",
        "",
    );
    assert_eq!(code, 409, "{body}");
    let got = reader.join().unwrap();
    assert!(got.contains("\"slept\":1.5"), "{got}");
    let (code, _) = gw.stop();
    assert_eq!(code, 0);
}

/// Issue #44's attack kit for the gateway's HTTP face, kept: mutated JSON-RPC messages
/// (requests, notifications, batches, responses) under random methods, session ids,
/// protocol versions and Last-Event-IDs, from clients that never had session A's id.
/// Every request gets a complete HTTP answer that is not a server error (a message that is
/// not JSON-RPC 2.0 left its stream open for good); none carries session A's
/// answer; the gateway stays up, A and a new session still work after, and it stops with 0.
#[test]
fn gateway_http_face_survives_a_structure_aware_fuzz_and_leaks_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let gw = Listening::start(
        &tmp.path().join("gw"),
        &["--max-sessions", "40"],
        &server_cmd("burst_server.py"),
        &[],
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let version = ("Mcp-Protocol-Version", "2025-11-25");
    let open = || {
        let (code, head, body) = exchange(&gw.url, "POST", &[], init, "\"result\"");
        assert_eq!(code, 200, "{head}{body}");
        let sid = head
            .lines()
            .find_map(|l| l.strip_prefix("mcp-session-id: "))
            .expect("a session id")
            .trim()
            .to_string();
        let sid_h = ("Mcp-Session-Id", sid.as_str());
        assert_eq!(
            exchange(&gw.url, "POST", &[sid_h, version], initialized, "").0,
            202
        );
        sid
    };
    let call = |sid: &str, n: u64| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"work","arguments":{{"n":{n}}}}}}}"#
        );
        let (code, _, got) = exchange(
            &gw.url,
            "POST",
            &[("Mcp-Session-Id", sid), version],
            &body,
            "",
        );
        (code, got)
    };
    let a = open();
    let (code, got) = call(&a, 987_654_321);
    assert_eq!(code, 200, "{got}");
    assert!(got.contains("987654321"), "{got}");
    let a_event = got
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap_or("1-0")
        .trim()
        .to_string();
    let b = open();
    let seeds: Vec<String> = vec![
        init.into(),
        initialized.into(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"work","arguments":{"n":5}}}"#.into(),
        r#"[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"work","arguments":{"n":6}}}]"#.into(),
        r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#.into(),
    ];
    const TOKENS: &[&[u8]] = &[
        b"{", b"}", b"[", b"]", b"\"", b"null", b"1e999", b"\"id\":", b"\\u0000",
    ];
    let mut m = crate::support::Mutator::new(0xD1B5_4A32_D192_ED03);
    let rounds: usize = std::env::var("GROUNDCHECK_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(1000, |r: usize| r / 5);
    for i in 0..rounds {
        let seed = &seeds[m.below(seeds.len())];
        let body = String::from_utf8_lossy(&m.mutate(seed.as_bytes(), TOKENS, 32, 16)).into_owned();
        let method = [
            "POST", "POST", "POST", "POST", "POST", "POST", "GET", "DELETE",
        ][m.below(8)];
        let random_sid = format!("{:x}", m.below(usize::MAX));
        let sid = match m.below(4) {
            0 => None,
            1 => Some(b.as_str()),
            2 => Some(random_sid.as_str()),
            _ => Some("not a session"),
        };
        let pv = ["2025-11-25", "2026-07-28", "1999-01-01", ""][m.below(4)];
        let last = [a_event.as_str(), "1-0", "99999999-3", "x"][m.below(4)];
        let mut headers = Vec::new();
        if let Some(sid) = sid {
            headers.push(("Mcp-Session-Id", sid));
        }
        if !pv.is_empty() {
            headers.push(("Mcp-Protocol-Version", pv));
        }
        if method == "GET" && m.below(2) == 0 {
            headers.push(("Last-Event-ID", last));
        }
        // A GET that opens a stream stays open: its headers are the answer.
        let until = if method == "GET" { "\r\n\r\n" } else { "" };
        let body = if method == "POST" {
            body
        } else {
            String::new()
        };
        let (code, head, got, ended) = exchange_ended(&gw.url, method, &headers, &body, until);
        // An answer still open at the read deadline is a hang.
        assert!(
            ended,
            "round {i}: {method} {headers:?} {body:?} got no complete answer: {code} {head}{got}"
        );
        assert!(
            (200..500).contains(&code) || code == 503,
            "round {i}: {method} {headers:?} {body:?} got {code}: {head}{got}"
        );
        assert!(
            !got.contains("987654321"),
            "round {i}: session A's answer reached another client: {got}"
        );
        assert!(
            gw.child_alive(),
            "round {i}: the gateway died on {method} {body:?}"
        );
    }
    // Session A was never touched; a new session works.
    let (code, got) = call(&a, 11);
    assert_eq!(code, 200, "{got}");
    assert!(
        got.contains("\"n\":11") || got.contains("\"n\": 11"),
        "{got}"
    );
    let c = open();
    let (code, got) = call(&c, 12);
    assert_eq!(code, 200, "{got}");
    let (code, err) = gw.stop();
    assert_eq!(code, 0, "{err}");
}

/// Issue #44: a call still waiting when the gateway is stopped gets an error answer, not
/// silence. The server here answers `initialize` and nothing else, and ignores the end of
/// its input.
#[test]
fn a_pending_call_is_answered_when_the_gateway_stops() {
    use std::io::Write;
    let mute = r#"
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "mute", "version": "1.0.0"}}}), flush=True)
    elif m.get("method") == "tools/list":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": [
              {"name": "wait", "inputSchema": {"type": "object"}}]}}), flush=True)
time.sleep(60)
"#;
    let tmp = tempfile::tempdir().unwrap();
    let mut gw = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(["gateway", "-q", "--out"])
        .arg(tmp.path().join("gw"))
        .args(["--", "python3", "-c", mute])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = gw.stdin.take().unwrap();
    let mut out = BufReader::new(gw.stdout.take().unwrap()).lines();
    writeln!(input, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    // The server's own bytes (Python's json.dumps spacing), passed on as written.
    assert!(out.next().unwrap().unwrap().contains("\"id\": 1"));
    writeln!(
        input,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(input, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"wait","arguments":{{}}}}}}"#).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    unsafe { libc::kill(gw.id() as i32, libc::SIGTERM) };
    let rest: Vec<String> = out.map_while(Result::ok).collect();
    let answer = rest
        .iter()
        .find(|l| l.contains("\"id\":2"))
        .unwrap_or_else(|| panic!("no answer to the pending call: {rest:?}"));
    assert!(answer.contains("\"error\""), "{answer}");
    assert!(answer.contains("shutting down"), "{answer}");
    let _ = gw.wait();
}

#[test]
fn gateway_http_streams_resume_and_sessions_end_as_the_spec_says() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("gw");
    // --sse-retry closes a waiting stream after 0.3 s; the SDK client comes back with
    // Last-Event-ID and gets the answer of the 1.5 s call on the resumed stream.
    let gw = Listening::start(
        &out,
        &["--sse-retry", "0.3"],
        &server_cmd("burst_server.py"),
        &[],
    );
    let calls = r#"[{"tool":"slow","arguments":{"seconds":1.5}}]"#;
    let through = play(
        "producers",
        "mcp_client.py",
        calls,
        std::slice::from_ref(&gw.url),
    );
    assert_eq!(through[0]["is_error"], false, "{through:?}");
    assert_eq!(through[0]["structured"]["slept"], 1.5);
    // The client's DELETE ended its session: its trace is written before the gateway
    // stops.
    // (The folder appears before the trace's file is renamed into it: wait for the file.)
    eventually("the ended session's trace", || {
        out.join("traces").exists() && !files(&out.join("traces"), ".parquet").is_empty()
    });
    let traces = files(&out.join("traces"), ".parquet");
    assert_eq!(traces.len(), 1, "{traces:?}");
    // Raw HTTP: an unknown session is 404, GET without a session 405, a page of another
    // site 403, an unsupported protocol version 400, a notification 202.
    let addr = gw
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let send = |method: &str, headers: &str, body: &str| -> String {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut r = String::new();
        let _ = s.read_to_string(&mut r);
        r.lines().next().unwrap_or_default().to_string()
    };
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert!(send("POST", "Mcp-Session-Id: nope\r\n", ping).contains(" 404 "));
    assert!(send("GET", "", "").contains(" 405 "));
    assert!(send("POST", "Origin: https://evil.example\r\n", ping).contains(" 403 "));
    assert!(send("POST", "MCP-Protocol-Version: 1999-01-01\r\n", ping).contains(" 400 "));
    assert!(send("POST", "", "{not json").contains(" 400 "));
    assert!(
        send(
            "POST",
            "",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        )
        .contains(" 202 ")
    );
    let (code, err) = gw.stop();
    assert_eq!(code, 0, "{err}");
    let resumed: u64 = err
        .split(" stream(s) resumed")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(resumed >= 1, "{err}");
}

#[test]
fn gateway_http_face_in_front_of_an_http_upstream() {
    // server-everything (TypeScript SDK) over streamable HTTP behind the HTTP face: each
    // agent session gets its own upstream session; validation as over stdio.
    let (_server, url) = crate::drift::everything_http();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("gw");
    let gw = Listening::start(&out, &["--upstream", &url], &[], &[]);
    let calls = r#"[{"tool":"get-sum","arguments":{"a":2,"b":3}},{"tool":"get-sum","arguments":{"x":2,"b":3}}]"#;
    for venv in ["producers", "openllmetry"] {
        let through = play(venv, "mcp_client.py", calls, std::slice::from_ref(&gw.url));
        assert_eq!(
            through[0]["text"], "The sum of 2 and 3 is 5.",
            "{venv}: {through:?}"
        );
        assert_eq!(through[1]["is_error"], true, "{venv}");
        assert_eq!(
            through[1]["text"],
            "Schema mismatch: expected parameter 'a', found 'x'. Tool blocked. One retry allowed: call 'get-sum' again with arguments that match its current inputSchema.",
            "{venv}"
        );
    }
    let (code, err) = gw.stop();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 session(s) served"), "{err}");
    assert_eq!(files(&out.join("traces"), ".parquet").len(), 2);
}

#[test]
fn gateway_speaks_every_older_protocol_version_with_the_typescript_server() {
    // The MCP SDK 1.x client proposing each version since 2024-11-05 to the TypeScript
    // SDK's server-everything (which speaks all of them), over stdio and the HTTP face.
    let everything: Vec<String> = crate::drift::everything()
        .split(' ')
        .map(str::to_string)
        .collect();
    let calls = r#"[{"tool":"get-sum","arguments":{"a":2,"b":3}},{"tool":"get-sum","arguments":{"x":2,"b":3}}]"#;
    let tmp = tempfile::tempdir().unwrap();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let env = [("GC_PROTOCOL_VERSION", version)];
        let direct = play_env("openllmetry", "mcp_client.py", calls, &everything, &env);
        for face in [Face::Stdio, Face::Http] {
            let out = tmp.path().join(format!("{version}-{face:?}"));
            let through = match face {
                Face::Stdio => {
                    let mut gw = vec![
                        env!("CARGO_BIN_EXE_groundcheck").to_string(),
                        "gateway".into(),
                        "--out".into(),
                        out.display().to_string(),
                        "--".into(),
                    ];
                    gw.extend(everything.iter().cloned());
                    play_env("openllmetry", "mcp_client.py", calls, &gw, &env)
                }
                Face::Http => {
                    let gw = Listening::start(&out, &[], &everything, &[]);
                    let t = play_env(
                        "openllmetry",
                        "mcp_client.py",
                        calls,
                        std::slice::from_ref(&gw.url),
                        &env,
                    );
                    gw.stop();
                    t
                }
            };
            let what = format!("{version} {face:?}");
            assert_eq!(through[2]["protocol"], version, "{what}");
            assert_eq!(through[0], direct[0], "{what}");
            assert_eq!(through[0]["text"], "The sum of 2 and 3 is 5.", "{what}");
            assert_eq!(through[1]["is_error"], true, "{what}");
            assert!(
                through[1]["text"]
                    .as_str()
                    .unwrap()
                    .starts_with("Schema mismatch: expected parameter 'a', found 'x'."),
                "{what}: {through:?}"
            );
            assert_eq!(through[2]["tools"], direct[2]["tools"], "{what}");
        }
    }
}

#[test]
fn servers_behind_the_gateway_get_an_allow_listed_environment() {
    // Issue #22: the gateway passed its whole environment (AWS keys included) to the MCP
    // servers it starts. Now only the allow-list and --pass-env reach them.
    let tmp = tempfile::tempdir().unwrap();
    let calls = r#"[{"tool":"getenv","arguments":{"name":"AWS_SECRET_ACCESS_KEY"}},{"tool":"getenv","arguments":{"name":"PATH"}}]"#;
    let env = [("AWS_SECRET_ACCESS_KEY", "do-not-leak")];
    let direct = play_env(
        "producers",
        "mcp_client.py",
        calls,
        &server_cmd("burst_server.py"),
        &env,
    );
    assert_eq!(direct[0]["structured"]["value"], "do-not-leak");
    for extra in [&[][..], &["--pass-env", "AWS_*"][..]] {
        let mut gw = vec![
            env!("CARGO_BIN_EXE_groundcheck").to_string(),
            "gateway".into(),
            "-q".into(),
            "--out".into(),
            tmp.path().join("gw").display().to_string(),
        ];
        gw.extend(extra.iter().map(|s| s.to_string()));
        gw.push("--".into());
        gw.extend(server_cmd("burst_server.py"));
        let through = play_env("producers", "mcp_client.py", calls, &gw, &env);
        let want = if extra.is_empty() {
            Value::Null
        } else {
            Value::from("do-not-leak")
        };
        assert_eq!(through[0]["structured"]["value"], want, "{extra:?}");
        assert!(through[1]["structured"]["value"].is_string(), "PATH passes");
    }
}
