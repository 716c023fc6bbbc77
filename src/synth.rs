//! `groundcheck gen`: a deterministic synthetic project at any size, for benchmarks and
//! scale tests. Tasks alternate between the demo's two servers (a generic warehouse that
//! answers with run_sql, a task-specific one with governed tools) and reuse the demo's
//! context and snapshots, so every query has real catalog entries and schemas to check.
//!
//! Each task draws from its own generator (seed, task index): shards can be written in
//! any order and the same seed always gives the same bytes.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::error::{Error, Result};

/// SplitMix64: small, fast, and stable across versions (a generator crate's stream may
/// change between releases; our files must not).
struct Rng(u64);

impl Rng {
    fn new(seed: u64, task: u64) -> Rng {
        let mut r = Rng(seed ^ task.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `p` percent.
    fn chance(&mut self, p: u64) -> bool {
        self.below(100) < p
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

const REGIONS: &[&str] = &["EMEA", "AMER", "APAC"];
const ROLES: &[(&str, &str, &str)] = &[
    ("finance_analyst", "fin.analyst", "all_regions"),
    ("regional_sales_manager", "sales.mgr", "own_region"),
    ("support_agent", "support.agent", "support_all"),
    ("support_lead", "support.lead", "support_all"),
];
const MODEL: &str = "claude-sonnet-4-5";

/// A question family: its words, gold fields, definition, the SQL a warehouse agent sends
/// (grounded and ungrounded variants), and the governed tool a task-specific server has.
struct Family {
    question: &'static str,
    required: &'static [&'static str],
    forbidden: &'static [&'static str],
    definition: Option<&'static str>,
    good_sql: &'static [&'static str],
    bad_sql: &'static [&'static str],
    tool: &'static str,
}

const FAMILIES: &[Family] = &[
    Family {
        question: "How many active customers did we have in {r} last quarter?",
        required: &[
            "customers.subscription_status",
            "customers.sales_region",
            "subscriptions.period_start",
            "subscriptions.period_end",
        ],
        forbidden: &["customers.is_active", "customers.region_code"],
        definition: Some(
            "active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter",
        ),
        good_sql: &[
            "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'",
            "WITH active AS (SELECT c.customer_id FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01') SELECT COUNT(DISTINCT customer_id) FROM active",
        ],
        bad_sql: &["SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code = '{r}'"],
        tool: "active_customer_count",
    },
    Family {
        question: "What was revenue in {r} for Q2?",
        required: &[
            "orders.status",
            "orders.closed_at",
            "order_lines.quantity",
            "order_lines.unit_price_usd",
        ],
        forbidden: &["orders.total_cents"],
        definition: Some("revenue = sum of quantity x unit price over paid orders, by close date"),
        good_sql: &[
            "SELECT SUM(l.quantity * l.unit_price_usd) FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'paid' AND c.sales_region = '{r}' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01'",
            "WITH lines AS (SELECT o.order_id, l.quantity * l.unit_price_usd AS amount FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'paid' AND c.sales_region = '{r}' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01') SELECT SUM(amount) FROM lines",
        ],
        bad_sql: &[
            "SELECT SUM(total_cents) / 100.0 FROM orders WHERE closed_at >= DATE '2026-04-01'",
        ],
        tool: "revenue",
    },
    Family {
        question: "Which {r} deals are in the top 5 by amount this month, with their rank?",
        required: &[
            "deals.deal_id",
            "deals.close_date",
            "deals.sales_region",
            "deals.amount_usd",
        ],
        forbidden: &[],
        definition: None,
        good_sql: &[
            "SELECT deal_id, amount_usd, rank() OVER (ORDER BY amount_usd DESC) AS rk FROM deals WHERE sales_region = '{r}' AND close_date >= DATE '2026-07-01' AND close_date < DATE '2026-08-01' ORDER BY rk LIMIT 5",
            "SELECT d.deal_id, d.amount_usd, row_number() OVER (PARTITION BY d.sales_region ORDER BY d.amount_usd DESC) AS rk FROM deals d WHERE d.sales_region = '{r}' AND d.close_date BETWEEN DATE '2026-07-01' AND DATE '2026-07-31' QUALIFY rk <= 5",
        ],
        bad_sql: &["SELECT deal_id, amount_usd FROM deals ORDER BY amount_usd DESC LIMIT 5"],
        tool: "deals_closing",
    },
    Family {
        question: "What is the open pipeline in {r}?",
        required: &["deals.stage", "deals.amount_usd", "deals.close_date"],
        forbidden: &[],
        definition: Some("pipeline = deals not won or lost"),
        good_sql: &[
            "SELECT SUM(amount_usd) FROM deals WHERE stage NOT IN ('won', 'lost') AND sales_region = '{r}' AND close_date >= DATE '2026-07-01'",
        ],
        bad_sql: &["SELECT SUM(amount_usd) FROM deals WHERE stage = 'open'"],
        tool: "pipeline_total",
    },
    Family {
        question: "How many open tickets does account {a} have?",
        required: &["tickets.cust_id", "tickets.status"],
        forbidden: &[],
        definition: Some("open ticket = status in (open, pending)"),
        good_sql: &[
            "SELECT COUNT(*) FROM tickets t JOIN customers c ON c.cust_id_v2 = t.cust_id WHERE c.name = '{a}' AND t.status IN ('open', 'pending')",
        ],
        bad_sql: &["SELECT COUNT(*) FROM tickets WHERE cust_id = '{a}' AND status = 'open'"],
        tool: "open_tickets",
    },
];

const ACCOUNTS: &[&str] = &["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark"];

/// Writes one task's case line and its trace lines.
fn task(seed: u64, i: u64, cases: &mut Vec<u8>, steps: &mut Vec<u8>) -> Result<()> {
    let mut r = Rng::new(seed, i);
    let fam = r.pick(FAMILIES);
    let region = *r.pick(REGIONS);
    let account = *r.pick(ACCOUNTS);
    let fill = |s: &str| s.replace("{r}", region).replace("{a}", account);
    let (role, user_prefix, scope) = *r.pick(ROLES);
    let as_user = format!("{user_prefix}.{:02}", r.below(40));
    let server = if i.is_multiple_of(2) {
        "generic-warehouse"
    } else {
        "task-specific"
    };
    let case_id = format!("gen-{i:07}");
    let trace_id = format!("gen-trace-{i:07}");
    let answer = (r.below(50_000) + 1) as f64;
    let question = fill(fam.question);
    let case = json!({
        "case_id": case_id, "source_trace": trace_id, "user_role": role, "as_user": as_user,
        "question": question,
        "gold": {
            "answer": answer, "tolerance": 0, "required_fields": fam.required,
            "forbidden_fields": fam.forbidden, "definition": fam.definition,
            "window": {"start": "2026-04-01", "end": "2026-06-30", "calendar": "fiscal"},
            "freshness_bound_hours": 24, "policy_scope": scope,
        },
    });
    serde_json::to_writer(&mut *cases, &case).map_err(|e| Error::Input(e.to_string()))?;
    cases.push(b'\n');

    let mut tr = Trace {
        out: steps,
        server,
        case_id: &case_id,
        trace_id: &trace_id,
        as_user: &as_user,
        step: 0,
        // Seconds from 2026-07-02T00:00:00Z, one task every 7 s.
        t: 1_782_950_400 + i as i64 * 7,
        calls: 0,
    };
    tr.emit(
        0,
        json!({"kind": "user", "as_user": as_user, "text": question}),
    )?;
    if r.chance(10) {
        tr.emit(1, json!({"kind": "clarification", "model": MODEL, "text": "Which quarter do you mean, fiscal or calendar?", "input_tokens": 600, "output_tokens": 20}))?;
        tr.emit(
            5,
            json!({"kind": "user", "as_user": as_user, "text": "Fiscal."}),
        )?;
    }
    tr.emit(1, json!({"kind": "reasoning", "model": MODEL, "text": "Plan: find the governed definition, then query.",
                      "input_tokens": 700, "output_tokens": 60}))?;
    let grounded = r.chance(75);
    if server == "generic-warehouse" {
        let sql = fill({
            let templates = if grounded { fam.good_sql } else { fam.bad_sql };
            templates[r.below(templates.len() as u64) as usize]
        });
        let rows = json!({"rows": [[answer]], "columns": ["value"]});
        // One path per task, so a trace stays within 5-12 steps.
        match r.below(100) {
            0..40 => {
                let tables = json!({"tables": ["customers", "subscriptions", "orders", "order_lines", "deals", "tickets"]});
                tr.call(&mut r, "list_tables", json!({}), tables, false)?;
                let table = fam.required[0].split('.').next().unwrap_or("customers");
                tr.call(
                    &mut r,
                    "describe_table",
                    json!({"table": table}),
                    json!({"columns": fam.required}),
                    false,
                )?;
                tr.call(&mut r, "run_sql", json!({"sql": sql}), rows, false)?;
            }
            40..55 => {
                // A retry: the first attempt fails on a typo.
                let typo = json!({"sql": sql.replacen("SELECT", "SELEC", 1)});
                tr.call(
                    &mut r,
                    "run_sql",
                    typo,
                    json!({"error": "syntax error at or near \"SELEC\""}),
                    true,
                )?;
                tr.call(&mut r, "run_sql", json!({"sql": sql}), rows, false)?;
            }
            55..60 => {
                // Paginated: two pages.
                let first = json!({"rows": [[answer]], "columns": ["value"], "next_cursor": "p2"});
                tr.call(&mut r, "run_sql", json!({"sql": sql}), first, false)?;
                let last = json!({"rows": [], "columns": ["value"]});
                tr.call(
                    &mut r,
                    "run_sql",
                    json!({"sql": sql, "cursor": "p2"}),
                    last,
                    false,
                )?;
            }
            _ => tr.call(&mut r, "run_sql", json!({"sql": sql}), rows, false)?,
        }
    } else {
        let args = if fam.tool == "open_tickets" {
            json!({"account_id": format!("C2-{:08}", r.below(99_999_999))})
        } else {
            json!({"region": region, "period": "2026-Q2"})
        };
        tr.call(
            &mut r,
            fam.tool,
            args,
            json!({"value": answer, "region": region}),
            false,
        )?;
    }
    tr.emit(1, json!({"kind": "assistant", "model": MODEL, "text": "Checking the result against the question.",
                      "input_tokens": 900 + r.below(1500), "output_tokens": 20 + r.below(60)}))?;
    let said = if r.chance(85) {
        answer
    } else {
        answer + 1.0 + r.below(100) as f64
    };
    tr.emit(2, json!({"kind": "answer", "model": MODEL, "text": format!("{said}"), "input_tokens": 1500, "output_tokens": 40}))
}

fn rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .expect("a time in range")
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// One task's trace as it is written: its ids, the step counter, the clock.
struct Trace<'a> {
    out: &'a mut Vec<u8>,
    server: &'static str,
    case_id: &'a str,
    trace_id: &'a str,
    as_user: &'a str,
    step: u64,
    /// Seconds since the epoch.
    t: i64,
    calls: u64,
}

impl Trace<'_> {
    /// Writes a step `secs` after the previous one.
    fn emit(&mut self, secs: i64, mut v: Value) -> Result<()> {
        self.t += secs;
        self.step += 1;
        v["run_id"] = json!("gen");
        v["server"] = json!(self.server);
        v["case_id"] = json!(self.case_id);
        v["trace_id"] = json!(self.trace_id);
        v["step"] = json!(self.step);
        v["ts"] = json!(rfc3339(self.t));
        serde_json::to_writer(&mut *self.out, &v).map_err(|e| Error::Input(e.to_string()))?;
        self.out.push(b'\n');
        Ok(())
    }

    /// A tool call and its result; the result's as_of is fresh, 3 days stale, or missing.
    fn call(
        &mut self,
        r: &mut Rng,
        tool: &str,
        args: Value,
        result: Value,
        error: bool,
    ) -> Result<()> {
        self.calls += 1;
        let call_id = format!("c{}", self.calls);
        let as_user = self.as_user;
        self.emit(1, json!({"kind": "tool_call", "call_id": call_id, "tool": tool, "arguments": args, "as_user": as_user,
                            "credential_subject": as_user, "model": MODEL, "input_tokens": 800 + r.below(2000), "output_tokens": 30 + r.below(120)}))?;
        let mut v = json!({"kind": "tool_result", "call_id": call_id, "tool": tool, "result": result, "is_error": error});
        let at = self.t + 1;
        match r.below(10) {
            0 => {}
            1 => v["as_of"] = json!(rfc3339(at - 3 * 86_400)),
            _ => v["as_of"] = json!(rfc3339(at - 600)),
        }
        self.emit(1, v)
    }
}

/// Tasks per traces file.
pub const SHARD: u64 = 50_000;

/// Writes the project. `progress` is called with tasks done.
pub fn generate(tasks: u64, seed: u64, out: &Path, progress: &dyn Fn(u64)) -> Result<()> {
    let io = |p: &Path, e: std::io::Error| Error::io(p.display(), e);
    std::fs::create_dir_all(out.join("traces")).map_err(|e| io(out, e))?;
    // Context and snapshots: the demo's, which the templates are written against.
    for (name, text) in crate::synth_context::FILES {
        let p = out.join(name);
        crate::output::write_atomic(&p, text.as_bytes()).map_err(|e| io(&p, e))?;
    }
    let cases_path = out.join("cases.jsonl");
    let mut cases_file = std::io::BufWriter::new(
        std::fs::File::create(&cases_path).map_err(|e| io(&cases_path, e))?,
    );
    let mut done = 0;
    while done < tasks {
        let end = (done + SHARD).min(tasks);
        let path = out
            .join("traces")
            .join(format!("part-{:05}.jsonl", done / SHARD));
        let mut steps_file =
            std::io::BufWriter::new(std::fs::File::create(&path).map_err(|e| io(&path, e))?);
        let (mut cases, mut steps) = (Vec::with_capacity(1 << 20), Vec::with_capacity(1 << 22));
        for i in done..end {
            task(seed, i, &mut cases, &mut steps)?;
            if cases.len() > 1 << 20 {
                cases_file
                    .write_all(&cases)
                    .map_err(|e| io(&cases_path, e))?;
                steps_file.write_all(&steps).map_err(|e| io(&path, e))?;
                cases.clear();
                steps.clear();
                progress(i + 1);
            }
        }
        cases_file
            .write_all(&cases)
            .map_err(|e| io(&cases_path, e))?;
        steps_file.write_all(&steps).map_err(|e| io(&path, e))?;
        steps_file.flush().map_err(|e| io(&path, e))?;
        done = end;
        progress(done);
    }
    cases_file.flush().map_err(|e| io(&cases_path, e))?;
    Ok(())
}
