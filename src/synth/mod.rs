//! `groundcheck gen`: a deterministic synthetic project at any size, for benchmarks and
//! scale tests. Tasks alternate between the demo's two servers (a generic warehouse that
//! answers with run_sql, a task-specific one with governed tools) and reuse the demo's
//! context and snapshots (synth_context.rs adds what more users and questions need), so
//! every query has real catalog entries and schemas to check.
//!
//! Each task is given at most one defect (`Defect`: one per failure class of the seed,
//! drawn per server) and, independently, a misread answer 15 % of the time; its case's
//! `label` is the label that follows (tests/it/synth.rs checks that the scorer finds
//! exactly it, so the generated project's intended-correct tasks are scored correct).
//!
//! Each task draws from its own generator (seed, task index): shards can be written in
//! any order and the same seed always gives the same bytes.

pub mod attack;
pub mod context;
mod vary;

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
/// (role, user name prefix, scope). A regional sales manager's region is fixed by their
/// number (`sales.mgr.07` is REGIONS[7 % 3]) and their policy row filters on it.
const ROLES: &[(&str, &str, &str)] = &[
    ("finance_analyst", "fin.analyst", "all_regions"),
    ("regional_sales_manager", "sales.mgr", "own_region"),
    ("support_agent", "support.agent", "support_all"),
    ("support_lead", "support.lead", "support_all"),
];
const USERS_PER_ROLE: u64 = 40;
const MODEL: &str = "claude-sonnet-4-5";
/// The service account a policy-defect call runs as instead of the end user.
const SERVICE_ACCOUNT: &str = "svc-warehouse";

/// A question family: its words, gold fields, definition and window; the SQL a warehouse
/// agent sends, grounded and with one defect each; the governed tool a task-specific
/// server has and the arguments it takes (JSON with `{r}` for the region, `{id}` for a
/// customer id).
struct Family {
    question: &'static str,
    required: &'static [&'static str],
    forbidden: &'static [&'static str],
    definition: Option<&'static str>,
    /// (start, end, calendar) of the window the question asks about.
    window: Option<(&'static str, &'static str, &'static str)>,
    /// Who asks it: support roles ask about tickets, the others about regions.
    support: bool,
    good_sql: &'static [&'static str],
    /// A forbidden field or another definition than the governed one: semantic only.
    semantic_sql: &'static [&'static str],
    /// The right fields over the wrong dates: temporal (window) only.
    window_sql: Option<&'static str>,
    /// A count after a one-to-many join: structural (grain) only.
    fanout_sql: Option<&'static str>,
    tool: &'static str,
    tool_args: &'static str,
    /// Another task-specific tool that does not encode the definition: semantic.
    wrong_tool: Option<(&'static str, &'static str)>,
    /// Arguments naming the customer in another id scheme: entity.
    entity_args: Option<&'static str>,
}

const Q2_FISCAL: Option<(&str, &str, &str)> = Some(("2026-04-01", "2026-06-30", "fiscal"));

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
        window: Q2_FISCAL,
        support: false,
        good_sql: &[
            "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'",
            "WITH active AS (SELECT c.customer_id FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01') SELECT COUNT(DISTINCT customer_id) FROM active",
        ],
        semantic_sql: &[
            "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.is_active = true AND c.region_code = '{r}' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'",
        ],
        window_sql: Some(
            "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' AND s.period_start <= DATE '2026-03-31' AND s.period_end >= DATE '2026-01-01'",
        ),
        fanout_sql: Some(
            "SELECT COUNT(c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = '{r}' AND s.period_start <= DATE '2026-06-30' AND s.period_end >= DATE '2026-04-01'",
        ),
        tool: "active_customer_count",
        tool_args: r#"{"region": "{r}", "period": "FY2027-Q1"}"#,
        wrong_tool: Some((
            "churned_customer_count",
            r#"{"region": "{r}", "period": "FY2027-Q1"}"#,
        )),
        entity_args: None,
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
        window: Some(("2026-04-01", "2026-06-30", "calendar")),
        support: false,
        good_sql: &[
            "SELECT SUM(l.quantity * l.unit_price_usd) FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'paid' AND c.sales_region = '{r}' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01'",
            "WITH lines AS (SELECT o.order_id, l.quantity * l.unit_price_usd AS amount FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'paid' AND c.sales_region = '{r}' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01') SELECT SUM(amount) FROM lines",
        ],
        semantic_sql: &[
            "SELECT SUM(o.total_cents) / 100.0 FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.sales_region = '{r}' AND o.closed_at >= DATE '2026-04-01' AND o.closed_at < DATE '2026-07-01'",
        ],
        window_sql: Some(
            "SELECT SUM(l.quantity * l.unit_price_usd) FROM orders o JOIN order_lines l ON l.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'paid' AND c.sales_region = '{r}' AND o.closed_at >= DATE '2026-03-01' AND o.closed_at < DATE '2026-06-01'",
        ),
        fanout_sql: None,
        tool: "revenue",
        tool_args: r#"{"region": "{r}", "period": "FY2027-Q1"}"#,
        wrong_tool: Some((
            "order_total",
            r#"{"customer_id": 4411, "period": "FY2027-Q1"}"#,
        )),
        entity_args: None,
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
        window: Some(("2026-07-01", "2026-07-31", "calendar")),
        support: false,
        good_sql: &[
            "SELECT deal_id, amount_usd, rank() OVER (ORDER BY amount_usd DESC) AS rk FROM deals WHERE sales_region = '{r}' AND close_date >= DATE '2026-07-01' AND close_date < DATE '2026-08-01' ORDER BY rk LIMIT 5",
            "SELECT d.deal_id, d.amount_usd, row_number() OVER (PARTITION BY d.sales_region ORDER BY d.amount_usd DESC) AS rk FROM deals d WHERE d.sales_region = '{r}' AND d.close_date BETWEEN DATE '2026-07-01' AND DATE '2026-07-31' QUALIFY rk <= 5",
        ],
        semantic_sql: &[
            "SELECT deal_id, amount_usd FROM deals WHERE close_date >= DATE '2026-07-01' AND close_date < DATE '2026-08-01' ORDER BY amount_usd DESC LIMIT 5",
        ],
        window_sql: Some(
            "SELECT deal_id, amount_usd, rank() OVER (ORDER BY amount_usd DESC) AS rk FROM deals WHERE sales_region = '{r}' AND close_date >= DATE '2026-06-01' AND close_date < DATE '2026-07-01' ORDER BY rk LIMIT 5",
        ),
        fanout_sql: None,
        tool: "deals_closing",
        tool_args: r#"{"month": "2026-07"}"#,
        wrong_tool: None,
        entity_args: None,
    },
    Family {
        question: "What is the open pipeline in {r}?",
        required: &["deals.stage", "deals.amount_usd", "deals.close_date"],
        forbidden: &[],
        definition: Some("pipeline = deals not won or lost"),
        window: None,
        support: false,
        good_sql: &[
            "SELECT SUM(amount_usd) FROM deals WHERE stage NOT IN ('won', 'lost') AND sales_region = '{r}' AND close_date >= DATE '2026-07-01'",
        ],
        semantic_sql: &[
            "SELECT SUM(amount_usd) FROM deals WHERE stage <> 'lost' AND sales_region = '{r}' AND close_date >= DATE '2026-07-01'",
        ],
        window_sql: None,
        fanout_sql: None,
        tool: "pipeline_total",
        tool_args: r#"{"period": "FY2027-Q2"}"#,
        wrong_tool: None,
        entity_args: None,
    },
    Family {
        question: "How many open tickets does account {a} have?",
        required: &["tickets.cust_id", "tickets.status"],
        forbidden: &[],
        definition: Some("open ticket = status in (open, pending)"),
        window: None,
        support: true,
        good_sql: &[
            "SELECT COUNT(*) FROM tickets t JOIN customers c ON c.cust_id_v2 = t.cust_id WHERE c.name = '{a}' AND t.status IN ('open', 'pending')",
        ],
        semantic_sql: &[
            "SELECT COUNT(*) FROM tickets t JOIN customers c ON c.cust_id_v2 = t.cust_id WHERE c.name = '{a}' AND t.status = 'open'",
        ],
        window_sql: None,
        fanout_sql: None,
        tool: "open_tickets",
        tool_args: r#"{"cust_id": "{id}"}"#,
        wrong_tool: None,
        entity_args: Some(r#"{"cust_id": "ACC-{n6}"}"#),
    },
];

const ACCOUNTS: &[&str] = &["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark"];

/// What a task is made to get wrong: at most one thing, so that its intended label has
/// at most one failure class (the case's `label` says which; `groundcheck label` must
/// find exactly it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Defect {
    None,
    /// Ungrounded SQL or a tool that does not encode the definition.
    Semantic,
    /// A customer named in another id scheme; the tool finds nothing; the agent says 0.
    Entity,
    /// A count after a one-to-many join.
    Fanout,
    /// A page with next_cursor and no follow-up call.
    Pagination,
    /// Dates outside the asked window.
    Window,
    /// A result with no as_of, or 3 days old.
    Freshness,
    /// The data call runs as a service account; a manager gets every region's rows.
    Policy,
}

impl Defect {
    fn class(self) -> Option<&'static str> {
        match self {
            Defect::None => None,
            Defect::Semantic => Some("semantic"),
            Defect::Entity => Some("entity"),
            Defect::Fanout | Defect::Pagination => Some("structural"),
            Defect::Window | Defect::Freshness => Some("temporal"),
            Defect::Policy => Some("policy"),
        }
    }

    fn note(self) -> &'static str {
        match self {
            Defect::None => "gen: grounded",
            Defect::Semantic => "gen: semantic (a forbidden field or another definition)",
            Defect::Entity => "gen: entity (a CRM id where the tool takes cust_id_v2)",
            Defect::Fanout => "gen: structural (a count after a one-to-many join)",
            Defect::Pagination => "gen: structural (next_cursor not followed)",
            Defect::Window => "gen: temporal (dates outside the asked window)",
            Defect::Freshness => "gen: temporal (a result without as_of, or 3 days old)",
            Defect::Policy => "gen: policy (the call ran as a service account)",
        }
    }
}

/// Draws a task's defect: weights in percent per server, a defect the family cannot
/// have counting as none.
fn defect(r: &mut Rng, fam: &Family, warehouse: bool) -> Defect {
    use Defect::*;
    let table: &[(Defect, u64)] = if warehouse {
        &[
            (Semantic, 20),
            (Window, 6),
            (Fanout, 5),
            (Pagination, 5),
            (Freshness, 8),
            (Policy, 4),
        ]
    } else {
        &[(Semantic, 8), (Entity, 8), (Freshness, 8), (Policy, 4)]
    };
    let mut x = r.below(100);
    for &(d, w) in table {
        if x < w {
            let possible = match d {
                Semantic => warehouse || fam.wrong_tool.is_some(),
                Window => fam.window_sql.is_some(),
                Fanout => fam.fanout_sql.is_some(),
                Entity => fam.entity_args.is_some(),
                _ => true,
            };
            return if possible { d } else { None };
        }
        x -= w;
    }
    None
}

/// Writes one task's case line and its trace lines.
/// Mixed into the seed for `vary`'s draws.
const VARY_STREAM: u64 = 0x5EED_5A17_0F5A_1A11;

fn task(seed: u64, i: u64, cases: &mut Vec<u8>, steps: &mut Vec<u8>) -> Result<()> {
    let mut r = Rng::new(seed, i);
    let fam = r.pick(FAMILIES);
    let (role, user_prefix, scope) = if fam.support {
        ROLES[2 + r.below(2) as usize]
    } else {
        ROLES[r.below(2) as usize]
    };
    let user = r.below(USERS_PER_ROLE);
    let as_user = format!("{user_prefix}.{user:02}");
    // A regional manager asks about their own region.
    let region = if scope == "own_region" {
        REGIONS[(user % 3) as usize]
    } else {
        *r.pick(REGIONS)
    };
    let account = *r.pick(ACCOUNTS);
    let fill = |s: &str| s.replace("{r}", region).replace("{a}", account);
    let warehouse = i.is_multiple_of(2);
    let server = if warehouse {
        "generic-warehouse"
    } else {
        "task-specific"
    };
    let defect = defect(&mut r, fam, warehouse);
    let case_id = format!("gen-{i:07}");
    let trace_id = format!("gen-trace-{i:07}");
    let answer = (r.below(50_000) + 1) as f64;
    // The agent reports what it read, and 15 % of the time misreads it; with the wrong
    // customer it read nothing and says 0.
    let said = match defect {
        Defect::Entity => 0.0,
        _ if r.chance(85) => answer,
        _ => answer + 1.0 + r.below(100) as f64,
    };
    let question = fill(fam.question);
    let window = fam
        .window
        .map(|(start, end, calendar)| json!({"start": start, "end": end, "calendar": calendar}));
    let case = json!({
        "case_id": case_id, "source_trace": trace_id, "user_role": role, "as_user": as_user,
        "question": question,
        "gold": {
            "answer": answer, "tolerance": 0, "required_fields": fam.required,
            "forbidden_fields": fam.forbidden, "definition": fam.definition,
            "window": window, "freshness_bound_hours": 24, "policy_scope": scope,
        },
        // The label the generator means the task to get.
        "label": {
            "correct": said == answer, "grounded": defect == Defect::None,
            "failure_class": defect.class(), "note": defect.note(),
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
    // What the data call returns and how: its rows (a manager's policy defect sees every
    // region), its as_of, its credential.
    let value_rows = |regions: &[&str]| -> Vec<Value> {
        regions
            .iter()
            .map(|g| json!({"sales_region": g, "value": answer}))
            .collect()
    };
    let rows = if fam.support {
        vec![json!({"value": answer})]
    } else if defect == Defect::Policy && scope == "own_region" {
        value_rows(REGIONS)
    } else {
        value_rows(&[region])
    };
    let data = Data {
        as_of: if defect == Defect::Freshness {
            if r.chance(50) {
                AsOf::Missing
            } else {
                AsOf::Stale
            }
        } else {
            AsOf::Fresh
        },
        credential: if defect == Defect::Policy {
            SERVICE_ACCOUNT
        } else {
            &as_user
        },
    };
    let fresh = Data {
        as_of: AsOf::Fresh,
        credential: &as_user,
    };
    if warehouse {
        let template: &str = match defect {
            Defect::Semantic => r.pick::<&str>(fam.semantic_sql),
            Defect::Window => fam.window_sql.expect("drawn only when present"),
            Defect::Fanout => fam.fanout_sql.expect("drawn only when present"),
            _ => r.pick::<&str>(fam.good_sql),
        };
        // Written as a person or a model might: mostly distinct text (synth::vary), drawn
        // from a stream of its own so the task's other draws stay what they were.
        let sql = vary::vary(&fill(template), &mut Rng::new(seed ^ VARY_STREAM, i));
        let result = json!({"rows": rows});
        if defect == Defect::Pagination {
            let first = json!({"rows": rows, "next_cursor": "p2"});
            tr.call(&mut r, "run_sql", json!({"sql": sql}), first, false, &data)?;
        } else {
            // One path per task, so a trace stays within 5-12 steps.
            match r.below(100) {
                0..40 => {
                    let tables = json!({"tables": ["customers", "subscriptions", "orders", "order_lines", "deals", "tickets"]});
                    tr.call(&mut r, "list_tables", json!({}), tables, false, &fresh)?;
                    let table = fam.required[0].split('.').next().unwrap_or("customers");
                    tr.call(
                        &mut r,
                        "describe_table",
                        json!({"table": table}),
                        json!({"columns": fam.required}),
                        false,
                        &fresh,
                    )?;
                    tr.call(&mut r, "run_sql", json!({"sql": sql}), result, false, &data)?;
                }
                40..55 => {
                    // A retry: the first attempt fails on a typo.
                    let at = sql.to_ascii_uppercase().find("SELECT").unwrap_or(0);
                    let typo = json!({"sql": format!("{}{}", &sql[..at + 5], &sql[at + 6..])});
                    tr.call(
                        &mut r,
                        "run_sql",
                        typo,
                        json!({"error": "syntax error at or near \"SELEC\""}),
                        true,
                        &fresh,
                    )?;
                    tr.call(&mut r, "run_sql", json!({"sql": sql}), result, false, &data)?;
                }
                55..60 => {
                    // Paginated and followed: two pages.
                    let first = json!({"rows": rows, "next_cursor": "p2"});
                    tr.call(&mut r, "run_sql", json!({"sql": sql}), first, false, &fresh)?;
                    tr.call(
                        &mut r,
                        "run_sql",
                        json!({"sql": sql, "cursor": "p2"}),
                        json!({"rows": []}),
                        false,
                        &data,
                    )?;
                }
                _ => tr.call(&mut r, "run_sql", json!({"sql": sql}), result, false, &data)?,
            }
        }
    } else {
        let (tool, args) = match defect {
            Defect::Semantic => fam.wrong_tool.expect("drawn only when present"),
            Defect::Entity => (fam.tool, fam.entity_args.expect("drawn only when present")),
            _ => (fam.tool, fam.tool_args),
        };
        let args = fill(args)
            .replace("{id}", &format!("C2-{:08x}", r.below(1 << 32)))
            .replace("{n6}", &format!("{:06}", r.below(1_000_000)));
        let args: Value = serde_json::from_str(&args).map_err(|e| Error::Input(e.to_string()))?;
        let result = match defect {
            Defect::Entity => json!({"rows": []}),
            _ if rows.len() == 1 => rows[0].clone(),
            _ => json!({"rows": rows}),
        };
        tr.call(&mut r, tool, args, result, false, &data)?;
    }
    tr.emit(1, json!({"kind": "assistant", "model": MODEL, "text": "Checking the result against the question.",
                      "input_tokens": 900 + r.below(1500), "output_tokens": 20 + r.below(60)}))?;
    tr.emit(2, json!({"kind": "answer", "model": MODEL, "text": format!("{said}"), "input_tokens": 1500, "output_tokens": 40}))
}

/// How a result is stamped.
#[derive(Clone, Copy)]
enum AsOf {
    /// 10 minutes before it arrived.
    Fresh,
    /// 3 days before.
    Stale,
    Missing,
}

/// How a call is made: its result's as_of and the credential it runs with.
struct Data<'a> {
    as_of: AsOf,
    credential: &'a str,
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

    /// A tool call and its result, stamped and credentialed as `data` says.
    fn call(
        &mut self,
        r: &mut Rng,
        tool: &str,
        args: Value,
        result: Value,
        error: bool,
        data: &Data,
    ) -> Result<()> {
        self.calls += 1;
        let call_id = format!("c{}", self.calls);
        let as_user = self.as_user;
        self.emit(1, json!({"kind": "tool_call", "call_id": call_id, "tool": tool, "arguments": args, "as_user": as_user,
                            "credential_subject": data.credential, "model": MODEL, "input_tokens": 800 + r.below(2000), "output_tokens": 30 + r.below(120)}))?;
        let mut v = json!({"kind": "tool_result", "call_id": call_id, "tool": tool, "result": result, "is_error": error});
        let at = self.t + 1;
        match data.as_of {
            AsOf::Missing => {}
            AsOf::Stale => v["as_of"] = json!(rfc3339(at - 3 * 86_400)),
            AsOf::Fresh => v["as_of"] = json!(rfc3339(at - 600)),
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
    for (name, text) in crate::synth::context::files(REGIONS, USERS_PER_ROLE) {
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
