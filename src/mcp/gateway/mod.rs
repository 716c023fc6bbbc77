//! `groundcheck gateway`: an MCP proxy between an agent (stdio) and the real server
//! (stdio child or streamable HTTP). It passes every message on in order, unchanged,
//! except that it
//! - reads the server's tools/list on connect and diffs it against a pinned snapshot:
//!   tools with blocking changes are refused (or hidden from tools/list);
//! - validates each tools/call against the current inputSchema before forwarding it: a
//!   mismatch is answered with a tool error in seed 002's form, one retry is allowed, a
//!   second mismatch in a row disables the tool for the session;
//! - answers a request itself with a JSON-RPC error when the server does not answer in
//!   time or is gone;
//! - records every call as trace steps, every message and every event (record.rs).
//!
//! Message ids, progress tokens and cancellations pass through untouched; the gateway's
//! own requests use ids of its own (`groundcheck-gateway-N`) and their answers are not
//! passed on.

pub mod guard;
pub mod http;
pub mod message;
pub mod record;
pub mod upstream;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use groundcheck_udfs::changes::{Action, Tool};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::drift::snapshot::Snapshot;
use crate::drift::{Ignore, Options, Override, judge};
use crate::error::{Error, Result};
use crate::input::import::mcp_result;
use guard::{Guard, Verdict};
use message::Msg;
use record::{Identity, Recorder, now};
use upstream::{Incoming, Upstream};

/// What happens to a tool whose drift since the pin is blocking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OnBlock {
    /// Keep it in tools/list; answer its calls with a tool error that says why.
    Error,
    /// Also leave it out of tools/list (calls to it are still refused).
    Hide,
}

#[derive(Clone)]
pub struct Config {
    /// `stdio:CMD` or an http(s) URL.
    pub upstream: String,
    pub pin: Option<Snapshot>,
    pub overrides: Vec<Override>,
    pub ignore: Ignore,
    pub on_block: OnBlock,
    pub identity: Identity,
    pub out: PathBuf,
    /// How long a request may wait for the server (progress notifications extend it).
    pub call_timeout: Duration,
    /// Reject parameters the schema does not name.
    pub strict: bool,
    pub quiet: bool,
    /// `(TOOL or *, RANGE)`: the versions this client was built for (seed 002's
    /// `supported_schema_version`), checked on every tools/list.
    pub client_ranges: Vec<(String, String)>,
    /// Re-read the server's tools this often, for servers that change their schemas
    /// without sending list_changed (None: never).
    pub relist_every: Option<Duration>,
    /// Re-read on that interval even a server that says it sends list_changed
    /// (`--relist-every` given; by default only the others are re-read).
    pub relist_always: bool,
    /// Variables (or `PREFIX*`) the server gets beside the default allow-list.
    pub pass_env: Vec<String>,
}

/// What a session did, for the exit message.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    pub calls: u64,
    pub refused: u64,
    pub disabled: Vec<String>,
    pub blocked: Vec<String>,
    pub timeouts: u64,
    pub upstream_closed: Option<String>,
    pub trace: Option<PathBuf>,
    pub steps: PathBuf,
}

const OWN_PREFIX: &str = "groundcheck-gateway-";

struct Call {
    tool: String,
    call_id: String,
    arguments: Value,
}

struct Pending {
    seq: u64,
    method: String,
    id: Value,
    deadline: Instant,
    progress_token: Option<Value>,
    call: Option<Call>,
    /// tools/list: the request asked for a later page.
    cursor: bool,
}

#[derive(Default)]
struct State {
    guard: Guard,
    pending: HashMap<String, Pending>,
    /// Ids the gateway answered itself (timeouts): a late answer is dropped.
    answered: HashSet<String>,
    seq: u64,
    own: HashSet<String>,
    own_list: Vec<Value>,
    agent_list: Vec<Value>,
    listing: bool,
    /// Complete tools/lists read so far (and server exit), as sent on `ready`.
    generation: u64,
    dead: Option<String>,
    closing: bool,
    server_version: Option<String>,
    /// The server declared `capabilities.tools.listChanged`: it says when its tools change.
    announces_changes: bool,
    /// When the last complete tools/list stops being current: its `ttlMs` (2026-07-28
    /// list results say how long a client may cache them).
    list_expires: Option<Instant>,
    /// The 2026-07-28 request envelope (`params._meta` protocol version, client info and
    /// capabilities) of the agent's latest request that carried one: the gateway's own
    /// requests carry the same, and its own results the fields that version requires.
    envelope: Option<Map<String, Value>>,
    summary: Summary,
}

/// `_meta` keys of the 2026-07-28 request envelope the gateway repeats on its own requests.
/// The 2026-07-28 `_meta` key that ties a change notification to its listen request.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

const ENVELOPE: &[&str] = &[
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
];

/// The server's name and version in a 2026-07-28 result's `_meta`.
fn server_info_meta(result: &Value) -> (Option<String>, Option<String>) {
    let info = result.pointer("/_meta/io.modelcontextprotocol~1serverInfo");
    let get = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    (get("name"), get("version"))
}

struct Shared {
    cfg: Config,
    rec: Mutex<Recorder>,
    state: Mutex<State>,
    to_agent: mpsc::UnboundedSender<Msg>,
    to_server: Mutex<Option<mpsc::UnboundedSender<Msg>>>,
    /// Bumped each time a complete tools/list is read (or the server is gone).
    ready: watch::Sender<u64>,
}

fn key(id: &Value) -> String {
    id.to_string()
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn rpc_error(id: &Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A successful tools/call answer with nothing in it, by the rule the entity class uses
/// (`result_is_empty`: an empty list or object, only empty lists, a zero count), or no
/// content or only blank text.
fn looks_empty(v: &Value) -> bool {
    let Some(r) = v.get("result") else {
        return false;
    };
    if r.get("isError").and_then(Value::as_bool) == Some(true) {
        return false;
    }
    match mcp_result::value(r) {
        Value::Null => true,
        Value::String(t) => t.trim().is_empty(),
        other => groundcheck_udfs::result_is_empty::is_empty(&other),
    }
}

/// Where a result says how fresh it is: the importers' rule (`_meta`, the structured
/// result, its body), so the gateway's steps and `import mcp-log` of its log agree.
fn as_of(result: &Value, value: &Value) -> Option<String> {
    mcp_result::as_of(value, result.get("_meta"))
        .or_else(|| mcp_result::as_of(result, None))
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

impl Shared {
    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_rec(&self) -> std::sync::MutexGuard<'_, Recorder> {
        self.rec.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Logs and sends to the agent under one lock, so the log's order is the wire's.
    /// The log has the bytes sent.
    fn send_agent(&self, m: impl Into<Msg>, origin: &str) {
        let m = m.into();
        let mut rec = self.lock_rec();
        if origin == "gateway" {
            // Marks answers the server never saw; the message sent is unchanged.
            rec.message("server->client", &m.marked("answered by the gateway"));
        } else {
            rec.message("server->client", &m.line());
        }
        let _ = self.to_agent.send(m);
    }

    /// An agent request the server never got, in the message log with why.
    fn log_unsent(&self, m: &Msg, why: &str) {
        self.lock_rec().message("client->server", &m.marked(why));
    }

    fn send_server(&self, m: impl Into<Msg>) -> bool {
        self.send_server_as(m, "client->server")
    }

    /// `send_server`, logged as `direction` (`gateway->server` for the gateway's own
    /// requests, whose answers are logged `server->gateway`).
    fn send_server_as(&self, m: impl Into<Msg>, direction: &str) -> bool {
        let m = m.into();
        let mut rec = self.lock_rec();
        let tx = self.to_server.lock().unwrap_or_else(|e| e.into_inner());
        match tx.as_ref() {
            Some(tx) => {
                rec.message(direction, &m.line());
                tx.send(m).is_ok()
            }
            None => false,
        }
    }

    fn event(&self, event: &str, fields: Value, warn: Option<String>) {
        self.lock_rec().event(event, fields, warn);
    }

    fn step(&self, kind: &str, ts: &str, extra: Value) {
        let extra = match extra {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        self.lock_rec().step(kind, ts, extra);
    }

    /// Whether the server says it sends list_changed (initialize's or server/discover's
    /// answer): such a server is not re-read on the default interval.
    fn note_capabilities(&self, v: &Value) {
        let says = v
            .pointer("/result/capabilities/tools/listChanged")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.lock_state().announces_changes = says;
    }

    /// A tools/list result's `ttlMs`: after it, the next call waits for a fresh list.
    fn note_ttl(&self, v: &Value) {
        if let Some(ms) = v.pointer("/result/ttlMs").and_then(Value::as_u64) {
            self.lock_state().list_expires =
                Some(Instant::now() + Duration::from_millis(ms.min(86_400_000)));
        }
    }

    /// The gateway's own tools/list (one page).
    fn list_tools(&self, cursor: Option<&Value>) {
        let (id, envelope) = {
            let mut st = self.lock_state();
            st.seq += 1;
            let id = format!("{OWN_PREFIX}{}", st.seq);
            st.own.insert(key(&json!(id)));
            st.listing = true;
            (id, st.envelope.clone())
        };
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        let mut params = Map::new();
        if let Some(c) = cursor {
            params.insert("cursor".into(), c.clone());
        }
        // A 2026-07-28 server refuses a request without the envelope (-32602).
        if let Some(e) = envelope {
            params.insert("_meta".into(), Value::Object(e));
        }
        if !params.is_empty() {
            msg["params"] = Value::Object(params);
        }
        self.send_server_as(msg, "gateway->server");
    }

    /// A complete tools/list: the current schemas, judged against the pin.
    fn apply_tools(&self, tools: Vec<Value>) {
        let mut by_name = BTreeMap::new();
        let mut parsed = Vec::new();
        for t in tools {
            let Some(name) = t.get("name").and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            match Tool::from_json(&t) {
                Ok(tool) => parsed.push(tool),
                Err(e) => self.event(
                    "tool_unreadable",
                    json!({"tool": name, "error": e}),
                    Some(format!("tool '{name}' in tools/list is unreadable: {e}")),
                ),
            }
            by_name.insert(name, t);
        }
        let out_of_range = self.out_of_range(&parsed);
        let mut blocked = BTreeMap::new();
        if let Some(pin) = &self.cfg.pin {
            let (server, server_version) = {
                let st = self.lock_state();
                (self.lock_rec().server.clone(), st.server_version.clone())
            };
            parsed.sort_by(|a, b| a.name.cmp(&b.name));
            let current = Snapshot {
                server,
                server_version,
                captured_at: None,
                source: self.cfg.upstream.clone(),
                tools: parsed,
                surface: None,
            };
            let opts = Options {
                overrides: &self.cfg.overrides,
                ignore: &self.cfg.ignore,
                client_range: None,
                others: &[],
            };
            match judge(pin.clone(), current, &opts) {
                Ok(d) => {
                    let mut why: BTreeMap<String, Vec<String>> = BTreeMap::new();
                    let mut warned = Vec::new();
                    for c in &d.changes {
                        match c.action {
                            Action::Block => why
                                .entry(c.tool.clone())
                                .or_default()
                                .push(c.message.clone()),
                            Action::Warn => warned.push(format!("{}: {}", c.tool, c.message)),
                            Action::Allow => {}
                        }
                    }
                    for (tool, msgs) in why {
                        blocked.insert(tool, msgs.join("; "));
                    }
                    let changes: Vec<Value> = d
                        .changes
                        .iter()
                        .map(|c| {
                            json!({"rule": c.rule, "tool": c.tool, "path": c.path,
                                   "severity": c.severity.as_str(), "action": c.action.as_str(),
                                   "message": c.message})
                        })
                        .collect();
                    let changed = self.lock_state().guard.blocked != blocked;
                    let warn = (changed || !warned.is_empty()).then(|| {
                        let mut s = format!(
                            "{} change(s) since the pinned snapshot {}: {} tool(s) blocked",
                            d.changes.len(),
                            pin.source,
                            blocked.len()
                        );
                        for (t, w) in &blocked {
                            s += &format!("\n  blocked {t}: {w}");
                        }
                        for w in &warned {
                            s += &format!("\n  warning {w}");
                        }
                        s
                    });
                    self.event(
                        "drift",
                        json!({"pin": pin.source, "changes": changes,
                               "blocked": blocked.keys().collect::<Vec<_>>()}),
                        warn.filter(|_| !d.changes.is_empty()),
                    );
                }
                Err(e) => self.event(
                    "drift_failed",
                    json!({"error": e.to_string()}),
                    Some(format!("cannot diff against the pin: {e}")),
                ),
            }
        }
        let mut st = self.lock_state();
        st.guard.tools = by_name;
        st.guard.out_of_range = out_of_range.clone();
        for t in out_of_range.keys() {
            if !st.summary.blocked.contains(t) {
                st.summary.blocked.push(t.clone());
            }
        }
        st.guard.blocked = blocked.clone();
        st.guard.ready = true;
        st.listing = false;
        st.summary.blocked.extend(
            blocked
                .into_keys()
                .filter(|t| !out_of_range.contains_key(t)),
        );
        st.summary.blocked.sort();
        st.summary.blocked.dedup();
        st.generation += 1;
        let generation = st.generation;
        drop(st);
        self.ready.send_replace(generation);
    }

    /// Tools whose declared version is outside the client's range, with seed 002's
    /// message. A tool that declares no version passes (logged once per list).
    fn out_of_range(&self, tools: &[Tool]) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for t in tools {
            let Some((_, range)) = self
                .cfg
                .client_ranges
                .iter()
                .rev()
                .find(|(name, _)| name == &t.name || name == "*")
            else {
                continue;
            };
            match t.version.as_deref() {
                Some(v) => match groundcheck_udfs::changes::semver::allows(range, v) {
                    Ok(true) => {}
                    Ok(false) => {
                        out.insert(
                            t.name.clone(),
                            format!("schema version mismatch, expected {range}, got {v}"),
                        );
                    }
                    Err(e) => {
                        out.insert(t.name.clone(), format!("schema version mismatch: {e}"));
                    }
                },
                None => self.event(
                    "no_declared_version",
                    json!({"tool": t.name, "range": range}),
                    None,
                ),
            }
        }
        for (tool, why) in &out {
            self.event(
                "version_mismatch",
                json!({"tool": tool, "message": why}),
                Some(format!("tool '{tool}': {why}; its calls are refused")),
            );
        }
        out
    }

    /// Answers a pending request with a JSON-RPC error and records it.
    fn fail_pending(&self, p: Pending, code: i64, message: String) {
        if let Some(call) = &p.call {
            self.step(
                "tool_result",
                &now(),
                json!({"call_id": call.call_id, "tool": call.tool, "is_error": true,
                       "result": {"error": message}}),
            );
        }
        self.send_agent(rpc_error(&p.id, code, message), "gateway");
    }

    fn start_timer(self: &Arc<Self>, k: String, seq: u64) {
        let me = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                let deadline = match me.lock_state().pending.get(&k) {
                    Some(p) if p.seq == seq => p.deadline,
                    _ => return,
                };
                tokio::time::sleep_until(deadline).await;
                let mut st = me.lock_state();
                match st.pending.get(&k) {
                    Some(p) if p.seq == seq && p.deadline <= Instant::now() => {}
                    Some(p) if p.seq == seq => continue,
                    _ => return,
                }
                let p = st.pending.remove(&k).expect("checked");
                st.answered.insert(k.clone());
                st.summary.timeouts += 1;
                drop(st);
                let secs = me.cfg.call_timeout.as_secs_f64();
                let what = match &p.call {
                    Some(c) => format!("tools/call {}", c.tool),
                    None => p.method.clone(),
                };
                let message = format!(
                    "groundcheck gateway: the MCP server did not answer {what} within {secs}s; \
                     the request was cancelled"
                );
                me.send_server(
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": p.id, "reason": "timeout (groundcheck gateway)"}}),
                );
                me.event(
                    "timeout",
                    json!({"id": p.id, "method": p.method, "after_s": secs}),
                    Some(message.clone()),
                );
                me.fail_pending(p, -32001, message);
                return;
            }
        });
    }

    /// A message from the agent.
    async fn on_agent_message(self: &Arc<Self>, msg: Msg, ready: &mut watch::Receiver<u64>) {
        if let Some(why) = message::not_json_rpc(&msg.v) {
            // The server would drop it without an answer: refused here, as the HTTP face
            // does, with the id when it has a usable one.
            let id = match msg.v.get("id") {
                Some(i @ (Value::String(_) | Value::Number(_))) => i.clone(),
                _ => Value::Null,
            };
            self.log_unsent(&msg, "refused by the gateway: not JSON-RPC 2.0");
            self.event("agent_not_json_rpc", json!({"why": why}), None);
            self.send_agent(
                rpc_error(&id, -32600, format!("Invalid Request: {why}")),
                "gateway",
            );
            return;
        }
        let v = &msg.v;
        let method = v.get("method").and_then(Value::as_str).map(str::to_string);
        let id = v.get("id").cloned().filter(|i| !i.is_null());
        match (method, id) {
            (Some(m), Some(id)) => self.agent_request(m, id, msg, ready).await,
            (Some(m), None) => {
                if m == "notifications/cancelled"
                    && let Some(rid) = v.pointer("/params/requestId")
                {
                    let p = self.lock_state().pending.remove(&key(rid));
                    if let Some(Pending { call: Some(c), .. }) = p {
                        let reason = v.pointer("/params/reason").cloned().unwrap_or(Value::Null);
                        self.step(
                            "tool_result",
                            &now(),
                            json!({"call_id": c.call_id, "tool": c.tool, "is_error": true,
                                   "result": {"cancelled": reason}}),
                        );
                    }
                }
                self.send_server(msg);
                if m == "notifications/initialized" {
                    self.list_tools(None);
                }
            }
            // A response to a server-to-client request, or anything else: passed on.
            _ => {
                self.send_server(msg);
            }
        }
    }

    async fn agent_request(
        self: &Arc<Self>,
        method: String,
        id: Value,
        msg: Msg,
        ready: &mut watch::Receiver<u64>,
    ) {
        let started = now();
        let v = &msg.v;
        if let Some(meta) = v.pointer("/params/_meta").and_then(Value::as_object)
            && meta.contains_key(ENVELOPE[0])
        {
            let e: Map<String, Value> = meta
                .iter()
                .filter(|(k, _)| ENVELOPE.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            self.lock_state().envelope = Some(e);
        }
        let mut call = None;
        if method == "tools/call" {
            let tool = v
                .pointer("/params/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let arguments = v.pointer("/params/arguments").cloned().unwrap_or(json!({}));
            let call_id = id_text(&id);
            // The first call may race the gateway's own tools/list, a tool the server
            // registers late (after initialized) may race its list_changed, and a call
            // after list_changed races the re-list: until the tool is known and no list is
            // in flight, wait, or ask once (bounded by --call-timeout).
            let deadline = Instant::now() + self.cfg.call_timeout;
            let mut asked = false;
            // The server said how long its list is current (ttlMs): past that, the call
            // is checked against a fresh one.
            let expired = {
                let mut st = self.lock_state();
                let expired = st.list_expires.is_some_and(|t| Instant::now() >= t)
                    && st.guard.ready
                    && !st.listing
                    && st.dead.is_none();
                if expired {
                    st.list_expires = None;
                }
                expired
            };
            if expired {
                self.event("list_expired", json!({"tool": tool}), None);
                self.list_tools(None);
                asked = true;
            }
            loop {
                let (known, listing, dead, generation) = {
                    let st = self.lock_state();
                    let known = st.guard.ready && st.guard.tools.contains_key(&tool);
                    (known, st.listing, st.dead.is_some(), st.generation)
                };
                // A re-list in flight (after list_changed) holds the call: it is checked
                // against the schema the server has now, not the one it had.
                if (known && !listing) || dead || (!listing && asked) {
                    break;
                }
                if !listing {
                    self.list_tools(None);
                    asked = true;
                }
                let fresh = ready.wait_for(|g| *g > generation);
                if tokio::time::timeout_at(deadline, fresh).await.is_err() {
                    break;
                }
            }
            // Recorded after the wait, so the server's name is known; ts is when it arrived.
            self.step(
                "tool_call",
                &started,
                json!({"call_id": call_id, "tool": tool, "arguments": arguments}),
            );
            self.lock_state().summary.calls += 1;
            let verdict = self.lock_state().guard.check(&tool, &arguments);
            if let Verdict::Refuse(r) = verdict {
                // The request stays in the message log, marked, so that `import mcp-log`
                // of the log has the refused call as the steps do.
                self.log_unsent(&msg, "refused by the gateway");
                self.refuse(&id, &tool, &call_id, &arguments, r);
                return;
            }
            call = Some(Call {
                tool,
                call_id,
                arguments,
            });
        }
        let dead = self.lock_state().dead.clone();
        if let Some(why) = dead {
            self.log_unsent(&msg, "not sent: the server is gone");
            let p = Pending {
                seq: 0,
                method: method.clone(),
                id,
                deadline: Instant::now(),
                progress_token: None,
                call,
                cursor: false,
            };
            self.fail_pending(
                p,
                -32000,
                format!("groundcheck gateway: {why}; {method} was not sent"),
            );
            return;
        }
        let k = key(&id);
        let seq = {
            let mut st = self.lock_state();
            st.seq += 1;
            let seq = st.seq;
            st.answered.remove(&k);
            st.pending.insert(
                k.clone(),
                Pending {
                    seq,
                    method,
                    id,
                    deadline: Instant::now() + self.cfg.call_timeout,
                    progress_token: v.pointer("/params/_meta/progressToken").cloned(),
                    call,
                    cursor: v.pointer("/params/cursor").is_some(),
                },
            );
            seq
        };
        self.start_timer(k, seq);
        self.send_server(msg);
    }

    /// Answers a tools/call with the gateway's refusal (a tool error the model reads).
    fn refuse(&self, id: &Value, tool: &str, call_id: &str, arguments: &Value, r: guard::Refusal) {
        let mut result = json!({"content": [{"type": "text", "text": r.text}], "isError": true});
        // 2026-07-28 results must say what they are (clients refuse them otherwise).
        if self.lock_state().envelope.is_some() {
            result["resultType"] = json!("complete");
        }
        self.step(
            "tool_result",
            &now(),
            json!({"call_id": call_id, "tool": tool, "is_error": true, "result": r.text}),
        );
        let warn = r.disabled_now.then(|| {
            format!(
                "tool '{tool}' disabled for this session after {} schema mismatches: {}",
                guard::STRIKES,
                r.violations.join("; ")
            )
        });
        {
            let mut st = self.lock_state();
            st.summary.refused += 1;
            if r.disabled_now {
                st.summary.disabled.push(tool.to_string());
            }
        }
        self.event(
            "refused",
            json!({"id": id, "tool": tool, "reason": r.reason, "violations": r.violations,
                   "arguments": arguments, "message": r.text}),
            None,
        );
        if r.disabled_now {
            self.event(
                "tool_disabled",
                json!({"tool": tool, "violations": r.violations}),
                warn,
            );
        }
        self.send_agent(
            json!({"jsonrpc": "2.0", "id": id, "result": result}),
            "gateway",
        );
        // The client re-lists and no longer sees the disabled tool.
        if r.disabled_now {
            self.tell_list_changed();
        }
    }

    /// `notifications/tools/list_changed` from the gateway. On 2026-07-28 change
    /// notifications travel on the agent's open `subscriptions/listen` requests, each
    /// stamped with that request's id; otherwise (or with none open) it is sent plain.
    fn tell_list_changed(&self) {
        let listens: Vec<Value> = {
            let st = self.lock_state();
            let mut ps: Vec<&Pending> = st
                .pending
                .values()
                .filter(|p| p.method == "subscriptions/listen")
                .collect();
            ps.sort_by_key(|p| p.seq);
            ps.into_iter().map(|p| p.id.clone()).collect()
        };
        if listens.is_empty() {
            self.send_agent(
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                "gateway",
            );
        }
        for id in listens {
            self.send_agent(
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                       "params": {"_meta": {SUBSCRIPTION_ID: id}}}),
                "gateway",
            );
        }
    }

    /// A tools/call answered with what looks like seed 002's silent default (an empty
    /// result) is held while the tools are read again: if the schema changed so that the
    /// call no longer fits, the agent gets the corrective error instead of the empty
    /// result (the server's answer is kept in the events file); otherwise the answer
    /// goes on as it came.
    fn hold_empty(self: &Arc<Self>, p: Pending, m: Msg) {
        let generation = self.lock_state().generation;
        if !self.lock_state().listing {
            self.list_tools(None);
        }
        let me = Arc::clone(self);
        let mut ready = self.ready.subscribe();
        tokio::spawn(async move {
            let fresh = ready.wait_for(|g| *g > generation);
            let _ = tokio::time::timeout(me.cfg.call_timeout, fresh).await;
            let call = p.call.as_ref().expect("held calls are tools/calls");
            let verdict = me.lock_state().guard.check(&call.tool, &call.arguments);
            match verdict {
                Verdict::Refuse(r) => {
                    me.event(
                        "empty_result_replaced",
                        json!({"id": p.id, "tool": call.tool, "server_answer": m.v,
                               "violations": r.violations}),
                        Some(format!(
                            "tool '{}' answered an empty result to arguments its current \
                             schema no longer takes: the agent got the corrective error",
                            call.tool
                        )),
                    );
                    let (id, tool, call_id, args) = (
                        p.id.clone(),
                        call.tool.clone(),
                        call.call_id.clone(),
                        call.arguments.clone(),
                    );
                    me.refuse(&id, &tool, &call_id, &args, r);
                }
                _ => {
                    let mut m = m;
                    me.answer(p, &mut m);
                    me.send_agent(m, "server");
                }
            }
        });
    }

    /// A message from the server.
    fn on_server_message(self: &Arc<Self>, mut m: Msg) {
        let v = &m.v;
        let method = v.get("method").and_then(Value::as_str).map(str::to_string);
        let id = v.get("id").cloned().filter(|i| !i.is_null());
        match (method, id) {
            (None, Some(id)) => {
                let k = key(&id);
                if self.lock_state().own.remove(&k) {
                    // Logged beside the gateway's own request, so the log has the pair
                    // (the agent never gets it).
                    self.lock_rec().message("server->gateway", &m.line());
                    self.own_answer(&m.v);
                    return;
                }
                let p = self.lock_state().pending.remove(&k);
                match p {
                    Some(p) if p.call.is_some() && looks_empty(&m.v) => {
                        self.hold_empty(p, m);
                        return;
                    }
                    Some(p) => self.answer(p, &mut m),
                    None if self.lock_state().answered.remove(&k) => {
                        self.event("late_response", json!({"id": id}), None);
                        return;
                    }
                    None => {}
                }
                self.send_agent(m, "server");
            }
            (Some(method), _) => {
                if method == "notifications/progress"
                    && let Some(token) = v.pointer("/params/progressToken")
                {
                    let mut st = self.lock_state();
                    let extend = Instant::now() + self.cfg.call_timeout;
                    for p in st.pending.values_mut() {
                        if p.progress_token.as_ref() == Some(token) {
                            p.deadline = extend;
                        }
                    }
                }
                let changed = method == "notifications/tools/list_changed";
                self.send_agent(m, "server");
                if changed {
                    self.list_tools(None);
                }
            }
            _ => self.send_agent(m, "server"),
        }
    }

    fn own_answer(&self, v: &Value) {
        if let Some(e) = v.get("error") {
            {
                let mut st = self.lock_state();
                st.listing = false;
                st.generation += 1;
                self.ready.send_replace(st.generation);
            }
            self.event(
                "tools_list_failed",
                json!({"error": e}),
                Some(format!("the server's tools/list failed: {e}")),
            );
            return;
        }
        let page = v
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        self.note_ttl(v);
        self.lock_state().own_list.extend(page);
        match v.pointer("/result/nextCursor").filter(|c| !c.is_null()) {
            Some(c) => self.list_tools(Some(c)),
            None => {
                let all = std::mem::take(&mut self.lock_state().own_list);
                self.apply_tools(all);
            }
        }
    }

    fn answer(&self, p: Pending, m: &mut Msg) {
        let v = &m.v;
        if p.method != "initialize"
            && let Some(r) = v.get("result")
        {
            let (name, version) = server_info_meta(r);
            if let Some(name) = name {
                let mut rec = self.lock_rec();
                if rec.server.is_none() {
                    rec.server = Some(name);
                }
            }
            if version.is_some() {
                self.lock_state()
                    .server_version
                    .get_or_insert(version.unwrap_or_default());
            }
        }
        match p.method.as_str() {
            // 2026-07-28 opens with server/discover (no initialize, no initialized): the
            // gateway reads the tools once it is answered.
            "server/discover" if v.get("result").is_some() => {
                self.note_capabilities(v);
                self.list_tools(None)
            }
            "initialize" => {
                self.note_capabilities(v);
                let name = v.pointer("/result/serverInfo/name").and_then(Value::as_str);
                let version = v
                    .pointer("/result/serverInfo/version")
                    .and_then(Value::as_str);
                self.lock_state().server_version = version.map(str::to_string);
                let mut rec = self.lock_rec();
                if rec.server.is_none() {
                    rec.server = name.map(str::to_string);
                }
            }
            "tools/list" => {
                self.note_ttl(v);
                let page = v
                    .pointer("/result/tools")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let more = v
                    .pointer("/result/nextCursor")
                    .is_some_and(|c| !c.is_null());
                let complete = {
                    let mut st = self.lock_state();
                    if !p.cursor {
                        st.agent_list.clear();
                    }
                    st.agent_list.extend(page);
                    (!more).then(|| std::mem::take(&mut st.agent_list))
                };
                if let Some(all) = complete {
                    self.apply_tools(all);
                }
                // Disabled tools leave the list the agent sees; blocked ones too with
                // --on-block hide.
                let hidden: Vec<String> = {
                    let st = self.lock_state();
                    let mut h: Vec<String> = st.guard.disabled.keys().cloned().collect();
                    if self.cfg.on_block == OnBlock::Hide {
                        h.extend(st.guard.blocked.keys().cloned());
                        h.extend(st.guard.out_of_range.keys().cloned());
                    }
                    h
                };
                // The one change the gateway makes to a server's message (the agent gets
                // it as serde_json writes it, not as the server did).
                let hides = |t: &Value| {
                    t.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| hidden.iter().any(|h| h == n))
                };
                if v.pointer("/result/tools")
                    .and_then(Value::as_array)
                    .is_some_and(|tools| tools.iter().any(hides))
                    && let Some(tools) = m
                        .value_mut()
                        .pointer_mut("/result/tools")
                        .and_then(Value::as_array_mut)
                {
                    tools.retain(|t| !hides(t));
                    self.event("hidden", json!({"tools": hidden}), None);
                }
            }
            _ => {}
        }
        let v = &m.v;
        if let Some(c) = &p.call {
            let (is_error, result, as_of) = match (v.get("result"), v.get("error")) {
                (Some(r), _) => {
                    let value = mcp_result::value(r);
                    let as_of = as_of(r, &value);
                    (
                        r.get("isError").and_then(Value::as_bool).unwrap_or(false),
                        value,
                        as_of,
                    )
                }
                (None, Some(e)) => (true, json!({"error": e}), None),
                (None, None) => (true, json!({"error": "no result"}), None),
            };
            let mut extra = json!({"call_id": c.call_id, "tool": c.tool, "is_error": is_error,
                                   "result": result});
            if let Some(t) = as_of {
                extra["as_of"] = json!(t);
            }
            // The identity the server says it ran the call as wins over the flag's.
            if let Some(who) = v.get("result").and_then(mcp_result::credential_subject) {
                extra["credential_subject"] = json!(who);
            }
            self.step("tool_result", &now(), extra);
        }
    }

    /// The server is gone: every pending request gets an error now, later ones at once.
    /// `failed`: the server exited with a failure status (it may lack a variable it was
    /// not given: the warning says how to pass one).
    fn upstream_closed(&self, why: String, failed: bool) {
        let (pending, closing) = {
            let mut st = self.lock_state();
            st.dead = Some(why.clone());
            if !st.closing {
                st.summary.upstream_closed = Some(why.clone());
            }
            st.generation += 1;
            self.ready.send_replace(st.generation);
            let mut ps: Vec<Pending> = st.pending.drain().map(|(_, p)| p).collect();
            ps.sort_by_key(|p| p.seq);
            (ps, st.closing)
        };
        if closing {
            self.event(
                "upstream_closed",
                json!({"reason": why, "unanswered": pending.len()}),
                None,
            );
        } else {
            self.event(
                "upstream_closed",
                json!({"reason": why, "unanswered": pending.len()}),
                Some(format!(
                    "{why}; {} request(s) unanswered{}",
                    pending.len(),
                    if failed {
                        "; it got an allow-listed environment: --pass-env NAME gives it a variable it needs"
                    } else {
                        ""
                    }
                )),
            );
        }
        // Shutting down or not, every request still waiting gets an answer: an agent
        // left waiting on a call that will never come back hangs.
        for p in pending {
            let what = p.method.clone();
            let message = if closing {
                format!("groundcheck gateway: shutting down before answering {what}")
            } else {
                format!("groundcheck gateway: {why} before answering {what}")
            };
            self.fail_pending(p, -32000, message);
        }
    }
}

/// What the agent sends a session.
#[derive(Debug)]
pub enum FromAgent {
    /// One message, or a batch's messages in order (each with its own bytes).
    Message(Vec<Msg>),
    /// A line that is not JSON (answered with a parse error).
    NotJson(String, String),
}

/// A running session: messages in from the agent, messages out to it (a `Null` marks the
/// end), and the session itself, which ends when `input` is dropped.
pub struct AgentSession {
    pub input: mpsc::UnboundedSender<FromAgent>,
    pub output: mpsc::UnboundedReceiver<Msg>,
    pub done: tokio::task::JoinHandle<Result<Summary>>,
}

/// Starts one session with the server in `cfg.upstream`; the agent side is the caller's
/// (stdio in `serve`, HTTP in `http`).
pub fn start(cfg: Config) -> Result<AgentSession> {
    let rec = Recorder::open(&cfg.out, cfg.identity.clone(), cfg.quiet)?;
    let steps = rec.steps_path().to_path_buf();
    let Upstream { tx, mut rx, stop } = match crate::drift::snapshot::Source::parse(&cfg.upstream) {
        crate::drift::snapshot::Source::Stdio(cmd) => upstream::stdio(&cmd, &cfg.pass_env)?,
        crate::drift::snapshot::Source::Http(url) => upstream::http(&url)?,
        _ => {
            return Err(Error::Config(format!(
                "{}: not a server (expected a command after --, or an http(s):// URL)",
                cfg.upstream
            )));
        }
    };
    let (to_agent, output) = mpsc::unbounded_channel::<Msg>();
    let (input, mut agent_rx) = mpsc::unbounded_channel::<FromAgent>();
    let (ready_tx, mut ready_rx) = watch::channel(0u64);
    let strict = cfg.strict;
    let shared = Arc::new(Shared {
        cfg,
        rec: Mutex::new(rec),
        state: Mutex::new(State {
            guard: Guard::new(strict),
            ..State::default()
        }),
        to_agent,
        to_server: Mutex::new(Some(tx)),
        ready: ready_tx,
    });
    shared.event(
        "started",
        json!({"upstream": shared.cfg.upstream,
               "pin": shared.cfg.pin.as_ref().map(|p| p.source.clone())}),
        None,
    );
    // A server that changes its tools without list_changed is caught by re-listing.
    let relister = shared.cfg.relist_every.map(|every| {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.tick().await;
            loop {
                tick.tick().await;
                let (ready, busy) = {
                    let st = shared.lock_state();
                    (
                        st.guard.ready && (shared.cfg.relist_always || !st.announces_changes),
                        st.listing || st.dead.is_some() || st.closing,
                    )
                };
                if ready && !busy {
                    shared.list_tools(None);
                }
            }
        })
    });
    let from_server = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            while let Some(item) = rx.recv().await {
                match item {
                    Incoming::Message(v) => shared.on_server_message(v),
                    Incoming::NotJson(line) => shared.event(
                        "upstream_not_json",
                        json!({"line": line}),
                        Some(format!(
                            "the server wrote a line that is not JSON-RPC: {line}"
                        )),
                    ),
                    Incoming::Closed { why, failed } => {
                        shared.upstream_closed(why, failed);
                        break;
                    }
                }
            }
        })
    };
    let done = tokio::spawn(async move {
        while let Some(item) = agent_rx.recv().await {
            match item {
                FromAgent::Message(batch) if batch.is_empty() => shared.send_agent(
                    rpc_error(
                        &Value::Null,
                        -32600,
                        "Invalid Request: an empty batch".into(),
                    ),
                    "gateway",
                ),
                FromAgent::Message(batch) => {
                    for m in batch {
                        shared.on_agent_message(m, &mut ready_rx).await;
                    }
                }
                FromAgent::NotJson(line, e) => {
                    shared.event("agent_not_json", json!({"line": line}), None);
                    shared.send_agent(
                        rpc_error(&Value::Null, -32700, format!("Parse error: {e}")),
                        "gateway",
                    );
                }
            }
        }
        shared.close(relister, from_server, stop, steps).await
    });
    Ok(AgentSession {
        input,
        output,
        done,
    })
}

impl Shared {
    /// The agent is done: close the server's stdin, give it a moment, then stop it; finish
    /// the records.
    async fn close(
        self: Arc<Self>,
        relister: Option<tokio::task::JoinHandle<()>>,
        mut from_server: tokio::task::JoinHandle<()>,
        stop: Option<tokio::sync::oneshot::Sender<()>>,
        steps: PathBuf,
    ) -> Result<Summary> {
        self.lock_state().closing = true;
        if let Some(r) = relister {
            r.abort();
        }
        self.to_server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if tokio::time::timeout(Duration::from_secs(3), &mut from_server)
            .await
            .is_err()
        {
            if let Some(stop) = stop {
                let _ = stop.send(());
            }
            let _ = tokio::time::timeout(Duration::from_secs(3), &mut from_server).await;
            from_server.abort();
        }
        let summary = {
            let st = self.lock_state();
            let mut s = st.summary.clone();
            s.steps = steps;
            s
        };
        let trace = self.lock_rec().finish()?;
        self.event(
            "closed",
            json!({"calls": summary.calls, "refused": summary.refused,
                   "disabled": summary.disabled, "timeouts": summary.timeouts,
                   "trace": trace.display().to_string()}),
            None,
        );
        // Everything queued for the agent before the marker is written first.
        let _ = self.to_agent.send(Msg::built(Value::Null));
        Ok(Summary {
            trace: Some(trace),
            ..summary
        })
    }
}

/// Runs one session: the agent on `input`/`output` (JSON-RPC lines), until the agent
/// closes `input` or a SIGTERM/SIGINT arrives.
pub async fn serve<R, W>(cfg: Config, input: R, mut output: W) -> Result<Summary>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let AgentSession {
        input: to_gateway,
        output: mut agent_rx,
        done,
    } = start(cfg)?;
    let writer = tokio::spawn(async move {
        while let Some(m) = agent_rx.recv().await {
            if m.v.is_null() {
                break; // the end-of-session marker
            }
            let mut line = m.line().into_owned();
            line.push('\n');
            if output.write_all(line.as_bytes()).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let mut lines = BufReader::new(input).lines();
    // SIGTERM or SIGINT ends the session like a closed stdin: records finished, server
    // stopped.
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| Error::Bug(format!("cannot watch for SIGTERM: {e}")))?;
    loop {
        let next = tokio::select! {
            l = lines.next_line() => l,
            _ = term.recv() => Ok(None),
            _ = tokio::signal::ctrl_c() => Ok(None),
        };
        let line = match next {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                eprintln!("groundcheck gateway: reading the agent's stdin failed: {e}");
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let item = match Msg::parse(&line) {
            Ok((msgs, _)) => FromAgent::Message(msgs),
            Err(e) => FromAgent::NotJson(line, e.to_string()),
        };
        if to_gateway.send(item).is_err() {
            break;
        }
    }
    drop(to_gateway);
    let summary = done
        .await
        .map_err(|e| Error::Bug(format!("the gateway session failed: {e}")))??;
    let _ = writer.await;
    Ok(summary)
}
