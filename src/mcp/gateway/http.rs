//! The gateway's HTTP face (`groundcheck gateway --listen ADDR`): streamable HTTP toward
//! agents, each agent session a gateway session of its own (its own server connection,
//! guard and trace), so validation, blocking and records are the stdio gateway's.
//!
//! - `POST /mcp` carries one message or a batch. Notifications and responses only: 202.
//!   Requests: an SSE stream (or one JSON body when the client does not accept
//!   `text/event-stream`) with their responses and the messages that belong to them
//!   (progress by token, change notifications by 2026-07-28 subscription id); the stream
//!   opens with a priming event so a client that loses it can resume.
//! - Sessions (2024-11-05 to 2025-11-25): a POST with `initialize` and no
//!   `Mcp-Session-Id` opens one and gets its id; later requests carry it (unknown: 404);
//!   `GET` opens the session's stream for server-initiated messages (kept until one
//!   opens); `DELETE` ends it.
//! - Resumption: `GET` with `Last-Event-ID` replays what a stream sent after that event
//!   and goes on with it while it is open. Stream ids are random and a session's streams
//!   resume only with its `Mcp-Session-Id`; a stream another connection still reads is
//!   not taken from it (409).
//! - At most `--max-sessions` sessions are open at once; another initialize gets 503.
//! - 2026-07-28 has no sessions: requests without a session id go to a gateway session
//!   per agent (issue #45: one agent's stale calls never disable a tool for another), the
//!   agent known by its `Groundcheck-Agent` header, else by the client info its requests
//!   carry (`_meta["io.modelcontextprotocol/clientInfo"]` name and version) and its
//!   address; `--shared-stateless` puts them all in one. Ids that collide with one in
//!   flight in a session are renamed toward the server and restored toward the agent.
//!   Closing a 2026-07-28 request's stream cancels the request, as that version says.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State as AxState;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::message::{Msg, not_json_rpc};
use super::{Config, FromAgent, Summary, key, start};
use crate::error::{Error, Result};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const LAST_EVENT: &str = "last-event-id";
/// The protocol versions the official SDKs speak; another one in the header is refused.
pub const VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];
const MODERN: &str = "2026-07-28";
/// Finished streams kept for resumption, per session.
const KEEP_FINISHED: usize = 4096;
/// Server-initiated messages kept for a session's GET stream until it opens.
const KEEP_BACKLOG: usize = 10_000;

/// One SSE stream (a POST's, or a session's GET stream).
struct Stream {
    /// The live connection, if any.
    tx: Option<mpsc::UnboundedSender<Event>>,
    /// Everything sent on it, for resumption.
    log: Vec<(u64, String)>,
    seq: u64,
    /// Requests still unanswered (the stream ends at 0; never for a GET stream).
    open: usize,
    standalone: bool,
    /// A plain JSON answer: only responses go on it.
    json: bool,
    /// 2026-07-28: dropping the stream cancels its requests.
    modern: bool,
}

#[derive(Default)]
struct Routes {
    /// Request id (as sent to the session) -> stream.
    waiting: HashMap<String, u64>,
    /// Renamed id -> the agent's own id.
    restore: HashMap<String, Value>,
    /// Progress token -> stream.
    tokens: HashMap<String, u64>,
    streams: HashMap<u64, Stream>,
    standalone: Option<u64>,
    backlog: VecDeque<Msg>,
    finished: VecDeque<u64>,
    ended: bool,
}

/// One agent session behind the HTTP face.
struct Conn {
    input: Mutex<Option<mpsc::UnboundedSender<FromAgent>>>,
    routes: Mutex<Routes>,
    last_active: Mutex<Instant>,
}

impl Conn {
    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn touch(&self) {
        *self.last_active.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn send(&self, item: FromAgent) -> bool {
        self.input
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|tx| tx.send(item).is_ok())
    }

    fn end(&self) {
        self.input.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

fn event(stream: u64, seq: u64, data: &str) -> Event {
    Event::default().id(format!("{stream}-{seq}")).data(data)
}

impl Routes {
    /// Sends `v` on stream `s` (logged for resumption); a response closes its part.
    fn deliver(&mut self, s: u64, m: &Msg, response: bool) {
        let Some(st) = self.streams.get_mut(&s) else {
            return;
        };
        st.seq += 1;
        let data = m.line().into_owned();
        if let Some(tx) = &st.tx
            && tx.send(event(s, st.seq, &data)).is_err()
        {
            st.tx = None;
        }
        st.log.push((st.seq, data));
        if response && !st.standalone {
            self.close_part(s);
        }
    }

    /// One request of stream `s` is done; the stream ends with its last.
    fn close_part(&mut self, s: u64) {
        let Some(st) = self.streams.get_mut(&s) else {
            return;
        };
        st.open = st.open.saturating_sub(1);
        if st.open == 0 {
            st.tx = None;
            self.tokens.retain(|_, t| *t != s);
            self.finished.push_back(s);
            while self.finished.len() > KEEP_FINISHED {
                if let Some(old) = self.finished.pop_front() {
                    self.streams.remove(&old);
                }
            }
        }
    }

    /// Where a message from the server that is not a response goes.
    fn route(&self, v: &Value) -> Option<u64> {
        let params = v.get("params");
        // A plain JSON answer has room for responses only.
        let by = |k: Option<&Value>, map: &HashMap<String, u64>| {
            k.and_then(|k| map.get(&key(k)).copied())
                .filter(|s| self.streams.get(s).is_some_and(|st| !st.json))
        };
        if let Some(s) = by(
            params.and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1subscriptionId")),
            &self.waiting,
        )
        .or_else(|| by(params.and_then(|p| p.get("progressToken")), &self.tokens))
        .or_else(|| by(params.and_then(|p| p.get("requestId")), &self.waiting))
        {
            return Some(s);
        }
        if let Some(s) = self.standalone
            && self.streams.get(&s).is_some_and(|st| st.tx.is_some())
        {
            return Some(s);
        }
        // No GET stream: the newest live stream of a request.
        self.streams
            .iter()
            .filter(|(_, st)| st.tx.is_some() && st.open > 0 && !st.json && !st.standalone)
            .map(|(s, _)| *s)
            .max()
    }
}

/// The listener's state: every session, and the template they are made from.
struct Face {
    template: Config,
    sessions: Mutex<HashMap<String, Arc<Conn>>>,
    /// Sessionless (2026-07-28) agents' gateway sessions, by agent (`agent_key`).
    stateless: tokio::sync::Mutex<HashMap<String, Arc<Conn>>>,
    /// All sessionless agents in one gateway session (`--shared-stateless`).
    shared_stateless: bool,
    counter: AtomicU64,
    done: Mutex<Vec<tokio::task::JoinHandle<Result<Summary>>>>,
    /// Streams by id, for resumption without a session header.
    owners: Mutex<HashMap<u64, Arc<Conn>>>,
    allowed_hosts: Vec<String>,
    sessions_made: AtomicU64,
    /// Streams resumed with Last-Event-ID.
    resumed: AtomicU64,
    /// Close a request's stream that waited this long (before 2026-07-28): the agent
    /// resumes it with Last-Event-ID (2025-11-25's SSE polling).
    sse_retry: Option<Duration>,
    /// Open sessions at most; an initialize beyond it gets 503.
    max_sessions: usize,
}

/// The header an agent names itself with on the stateless face (beats client info).
pub const AGENT_HEADER: &str = "groundcheck-agent";

/// Which sessionless agent a POST comes from, with the peer's address: its
/// `Groundcheck-Agent` header, else the client info of its requests' 2026-07-28
/// envelope. Not the connection: a 2026-07-28 client holds a stream open
/// (`subscriptions/listen`) and sends its other requests on other connections, which
/// must reach the same session. So two copies of one client program on one host are one
/// agent unless they send the header (docs/gateway.md). None: the POST says nothing (a
/// notification or response without an envelope); it goes to the session of that
/// address used last.
fn agent_key(h: &HeaderMap, items: &[&Value], peer: std::net::SocketAddr) -> Option<String> {
    if let Some(a) = header_str(h, AGENT_HEADER) {
        return Some(format!("{} header {a}", peer.ip()));
    }
    items.iter().find_map(|m| {
        let info = m.pointer("/params/_meta/io.modelcontextprotocol~1clientInfo")?;
        let s = |k: &str| info.get(k).and_then(Value::as_str).unwrap_or("");
        Some(format!(
            "{} client {}@{}",
            peer.ip(),
            s("name"),
            s("version")
        ))
    })
}

impl Face {
    /// A new stream id. Event ids are `STREAM-SEQ` and a stream can be resumed by its id:
    /// random, so no client can guess another's (a counter gave any session's stream to
    /// whoever asked for `N-0`). The counter keeps ids apart if /dev/urandom fails.
    fn next(&self) -> u64 {
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        let token = session_id();
        let r = u64::from_str_radix(&token[..16], 16).unwrap_or(n);
        // Below 2^53 so a client that parses it as a JS number keeps it exact; never 0.
        ((r ^ n) & ((1 << 53) - 1)).max(1)
    }

    /// The 503 a new session gets when `--max-sessions` are open (sessions with an id
    /// and the `sessionless` agents' ones).
    fn full(&self, sessionless: usize) -> Option<Response> {
        let open = sessionless
            + self
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .len();
        (open >= self.max_sessions).then(|| {
            error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                &format!(
                    "the gateway has {open} open sessions, its limit (--max-sessions): \
                     end one with DELETE or wait for idle ones to close"
                ),
            )
        })
    }

    /// A new gateway session; its trace id is the template's with a suffix.
    fn open(&self, suffix: &str) -> Result<Arc<Conn>> {
        let mut cfg = self.template.clone();
        cfg.identity.trace_id = format!("{}-{suffix}", self.template.identity.trace_id);
        let session = start(cfg)?;
        let conn = Arc::new(Conn {
            input: Mutex::new(Some(session.input)),
            routes: Mutex::new(Routes::default()),
            last_active: Mutex::new(Instant::now()),
        });
        let mut output = session.output;
        let router = Arc::clone(&conn);
        tokio::spawn(async move {
            while let Some(m) = output.recv().await {
                if m.v.is_null() {
                    break;
                }
                router.to_agent(m);
            }
            let mut r = router.routes();
            r.ended = true;
            for st in r.streams.values_mut() {
                st.tx = None;
            }
        });
        self.done
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(session.done);
        Ok(conn)
    }
}

impl Conn {
    /// A message from the gateway session to the agent.
    fn to_agent(&self, mut m: Msg) {
        let mut r = self.routes();
        let is_response =
            m.v.get("method").is_none() && m.v.get("id").is_some_and(|i| !i.is_null());
        if is_response {
            let k = key(&m.v["id"]);
            if let Some(orig) = r.restore.remove(&k) {
                // The agent's own id back (the one change to a server's answer here).
                m.value_mut()["id"] = orig;
            }
            // An answer to a request the agent gave up on (cancelled, stream closed) has
            // nowhere to go; it is in the message log.
            if let Some(s) = r.waiting.remove(&k) {
                r.deliver(s, &m, true);
            }
            return;
        }
        match r.route(&m.v) {
            Some(s) => r.deliver(s, &m, false),
            None => push_backlog(&mut r, m),
        }
    }

    /// A POST stream's connection went away before all its answers were sent.
    fn dropped(&self, s: u64) {
        let cancel: Vec<Value> = {
            let mut r = self.routes();
            let Some(st) = r.streams.get_mut(&s) else {
                return;
            };
            st.tx = None;
            if !st.modern || st.open == 0 {
                return;
            }
            let ids: Vec<String> = r
                .waiting
                .iter()
                .filter(|(_, v)| **v == s)
                .map(|(k, _)| k.clone())
                .collect();
            for k in &ids {
                r.waiting.remove(k);
            }
            ids.iter()
                .filter_map(|k| serde_json::from_str(k).ok())
                .collect()
        };
        for id in cancel {
            self.send(FromAgent::Message(vec![Msg::built(json!({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the agent closed the request's stream"}
            }))]));
        }
    }
}

fn push_backlog(r: &mut Routes, m: Msg) {
    r.backlog.push_back(m);
    while r.backlog.len() > KEEP_BACKLOG {
        r.backlog.pop_front();
    }
}

/// Tells a session when the agent is gone from one of its streams (the SSE body, or a
/// POST waiting for its JSON answer, was dropped).
struct Watch {
    conn: Arc<Conn>,
    stream: u64,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.conn.dropped(self.stream);
    }
}

/// An SSE body, watched.
struct Body {
    rx: mpsc::UnboundedReceiver<Event>,
    _watch: Watch,
}

impl Body {
    fn new(rx: mpsc::UnboundedReceiver<Event>, conn: Arc<Conn>, stream: u64) -> Body {
        Body {
            rx,
            _watch: Watch { conn, stream },
        }
    }
}

impl futures::Stream for Body {
    type Item = std::result::Result<Event, Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx).map(|e| e.map(Ok))
    }
}

fn error_response(status: StatusCode, code: i64, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
            .to_string(),
    )
        .into_response()
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// A random session id (the spec asks for one that cannot be guessed).
fn session_id() -> String {
    use std::io::Read;
    let mut b = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    if read.is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        b = t.to_le_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Face {
    /// Requests from a browser page of another site are refused (DNS rebinding).
    fn origin_ok(&self, h: &HeaderMap) -> bool {
        let Some(origin) = header_str(h, "origin") else {
            return true;
        };
        let host = origin
            .split("://")
            .nth(1)
            .unwrap_or(origin)
            .split('/')
            .next()
            .unwrap_or_default();
        let host = match host.rsplit_once(':') {
            Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
            _ => host,
        };
        self.allowed_hosts.iter().any(|a| a == host)
    }

    async fn post(
        self: Arc<Self>,
        h: HeaderMap,
        peer: std::net::SocketAddr,
        body: Bytes,
    ) -> Response {
        if !self.origin_ok(&h) {
            return error_response(StatusCode::FORBIDDEN, -32600, "Origin not allowed");
        }
        let version = header_str(&h, VERSION_HEADER).map(str::to_string);
        if let Some(v) = &version
            && !VERSIONS.contains(&v.as_str())
        {
            return error_response(
                StatusCode::BAD_REQUEST,
                -32600,
                &format!(
                    "Unsupported MCP-Protocol-Version: {v} (supported: {})",
                    VERSIONS.join(", ")
                ),
            );
        }
        // The body's bytes are what the server gets (each message of a batch its own).
        let parsed = std::str::from_utf8(&body)
            .map_err(|e| e.to_string())
            .and_then(|t| Msg::parse(t).map_err(|e| e.to_string()));
        let (mut msgs, batch) = match parsed {
            Ok(p) => p,
            Err(e) => {
                return error_response(
                    StatusCode::BAD_REQUEST,
                    -32700,
                    &format!("Parse error: {e}"),
                );
            }
        };
        let items: Vec<&Value> = msgs.iter().map(|m| &m.v).collect();
        if items.is_empty() || items.iter().any(|m| !m.is_object()) {
            return error_response(
                StatusCode::BAD_REQUEST,
                -32600,
                "Invalid Request: not a JSON-RPC message",
            );
        }
        // What the server would drop without an answer (leaving the stream open for
        // good) is refused here: JSON-RPC 2.0's shape.
        if let Some(why) = items.iter().find_map(|m| not_json_rpc(m)) {
            return error_response(
                StatusCode::BAD_REQUEST,
                -32600,
                &format!("Invalid Request: {why}"),
            );
        }
        let is_request =
            |m: &&Value| m.get("method").is_some() && m.get("id").is_some_and(|i| !i.is_null());
        let requests: Vec<&Value> = items.iter().copied().filter(is_request).collect();
        // 2026-07-28 mirrors the method in a header; one that disagrees is refused.
        if let (Some(hm), [one]) = (header_str(&h, METHOD_HEADER), requests.as_slice())
            && one.get("method").and_then(Value::as_str) != Some(hm)
        {
            return error_response(
                StatusCode::BAD_REQUEST,
                -32600,
                "Mcp-Method header does not match the request body's method",
            );
        }
        let n_requests = requests.len();
        let initialize = requests
            .iter()
            .any(|m| m.get("method").and_then(Value::as_str) == Some("initialize"));
        let (conn, new_id) = match header_str(&h, SESSION_HEADER) {
            Some(sid) => {
                let found = self
                    .sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(sid)
                    .cloned();
                match found {
                    Some(c) => (c, None),
                    None => {
                        return error_response(StatusCode::NOT_FOUND, -32001, "Session not found");
                    }
                }
            }
            None if initialize => {
                let sessionless = self.stateless.lock().await.len();
                if let Some(full) = self.full(sessionless) {
                    return full;
                }
                let sid = session_id();
                let n = self.sessions_made.fetch_add(1, Ordering::Relaxed) + 1;
                match self.open(&format!("s{n}")) {
                    Ok(c) => {
                        self.sessions
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(sid.clone(), Arc::clone(&c));
                        (c, Some(sid))
                    }
                    Err(e) => {
                        return error_response(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            -32603,
                            &e.to_string(),
                        );
                    }
                }
            }
            None => {
                let agent = if self.shared_stateless {
                    Some("shared".to_string())
                } else {
                    agent_key(&h, &items, peer)
                };
                let mut slots = self.stateless.lock().await;
                slots.retain(|_, c| !c.routes().ended);
                let found = match &agent {
                    Some(a) => slots.get(a).cloned(),
                    // Says nothing of who it is: the session of its address that was used
                    // last (the agent's own, unless two agents share an address and send
                    // no header: docs/gateway.md).
                    None => slots
                        .iter()
                        .filter(|(k, _)| k.starts_with(&format!("{} ", peer.ip())))
                        .max_by_key(|(_, c)| {
                            *c.last_active.lock().unwrap_or_else(|e| e.into_inner())
                        })
                        .map(|(_, c)| Arc::clone(c)),
                };
                let c = match found {
                    Some(c) => c,
                    None => {
                        if let Some(full) = self.full(slots.len()) {
                            return full;
                        }
                        let n = self.sessions_made.fetch_add(1, Ordering::Relaxed) + 1;
                        match self.open(&format!("agent{n}")) {
                            Ok(c) => {
                                let k = agent.unwrap_or_else(|| format!("{} anonymous", peer.ip()));
                                slots.insert(k, Arc::clone(&c));
                                c
                            }
                            Err(e) => {
                                return error_response(
                                    StatusCode::INTERNAL_SERVER_ERROR,
                                    -32603,
                                    &e.to_string(),
                                );
                            }
                        }
                    }
                };
                (c, None)
            }
        };
        conn.touch();
        let modern = version.as_deref() == Some(MODERN)
            || requests.iter().any(|m| {
                m.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                    .and_then(Value::as_str)
                    == Some(MODERN)
            });
        if n_requests == 0 {
            // A cancelled request will not be answered: its part of its stream ends.
            {
                let mut r = conn.routes();
                for m in &items {
                    if m.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
                        && let Some(id) = m.pointer("/params/requestId")
                        && let Some(s) = r.waiting.remove(&key(id))
                    {
                        r.close_part(s);
                    }
                }
            }
            if !conn.send(FromAgent::Message(msgs)) {
                return error_response(StatusCode::NOT_FOUND, -32001, "Session ended");
            }
            return StatusCode::ACCEPTED.into_response();
        }
        let sse = header_str(&h, "accept").is_some_and(|a| a.contains("text/event-stream"));
        let s = self.next();
        let (tx, rx) = mpsc::unbounded_channel();
        {
            let mut r = conn.routes();
            // Ids in flight are renamed toward the server (agents of the stateless
            // session share it) and restored in the answers.
            let rename = |m: &mut Msg| {
                if !is_request(&&m.v) {
                    return;
                }
                let k = key(&m.v["id"]);
                if r.waiting.contains_key(&k) {
                    let orig = m.v["id"].clone();
                    let renamed = json!(format!("{}#{}", super::id_text(&orig), self.next()));
                    r.restore.insert(key(&renamed), orig);
                    m.value_mut()["id"] = renamed;
                }
                r.waiting.insert(key(&m.v["id"]), s);
                if let Some(t) = m.v.pointer("/params/_meta/progressToken") {
                    r.tokens.insert(key(t), s);
                }
            };
            msgs.iter_mut().for_each(rename);
            r.streams.insert(
                s,
                Stream {
                    tx: Some(tx.clone()),
                    log: Vec::new(),
                    seq: 0,
                    open: n_requests,
                    standalone: false,
                    json: !sse,
                    modern,
                },
            );
        }
        self.owners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(s, Arc::clone(&conn));
        if sse {
            // The priming event: an id to resume from before anything else is sent.
            let _ = tx.send(event(s, 0, ""));
        }
        drop(tx);
        if !conn.send(FromAgent::Message(msgs)) {
            return error_response(StatusCode::NOT_FOUND, -32001, "Session ended");
        }
        let mut headers = HeaderMap::new();
        if let Some(sid) = new_id
            && let Ok(v) = sid.parse()
        {
            headers.insert(SESSION_HEADER, v);
        }
        if sse {
            if !modern {
                self.close_later(&conn, s);
            }
            return (headers, Sse::new(Body::new(rx, conn, s))).into_response();
        }
        // A plain JSON answer: wait for every response of the POST.
        let mut rx = rx;
        let mut answers = Vec::new();
        let watch = Watch {
            conn: Arc::clone(&conn),
            stream: s,
        };
        while rx.recv().await.is_some() {}
        drop(watch);
        if let Some(st) = conn.routes().streams.get(&s) {
            answers.extend(st.log.iter().map(|(_, data)| data.clone()));
        }
        // A batch is answered with an array, one request with its response: the
        // messages' own text either way.
        let body = match (batch, answers.len()) {
            (false, 1) => answers.pop().unwrap_or_default(),
            _ => format!("[{}]", answers.join(",")),
        };
        headers.insert(
            header::CONTENT_TYPE,
            "application/json".parse().expect("static"),
        );
        (headers, body).into_response()
    }

    async fn get(self: Arc<Self>, h: HeaderMap) -> Response {
        if !self.origin_ok(&h) {
            return error_response(StatusCode::FORBIDDEN, -32600, "Origin not allowed");
        }
        let conn = match header_str(&h, SESSION_HEADER) {
            Some(sid) => match self
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(sid)
            {
                Some(c) => Some(Arc::clone(c)),
                None => return error_response(StatusCode::NOT_FOUND, -32001, "Session not found"),
            },
            None => None,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        // Resumption: the stream named by the last event the agent saw.
        if let Some(last) = header_str(&h, LAST_EVENT) {
            let Some((s, seq)) = last
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)))
            else {
                return error_response(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "Last-Event-ID is not one of this gateway's",
                );
            };
            let owner = self
                .owners
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&s)
                .cloned();
            // A session's stream is resumed with that session's id; only sessionless
            // (2026-07-28) agents' streams (no session id exists there) go by stream id.
            let stateless: Vec<Arc<Conn>> = self.stateless.lock().await.values().cloned().collect();
            let Some(owner) = owner.filter(|o| match &conn {
                Some(c) => Arc::ptr_eq(c, o),
                None => stateless.iter().any(|s| Arc::ptr_eq(s, o)),
            }) else {
                return error_response(StatusCode::NOT_FOUND, -32001, "No such stream to resume");
            };
            owner.touch();
            self.resumed.fetch_add(1, Ordering::Relaxed);
            {
                let mut r = owner.routes();
                let ended = r.ended;
                let Some(st) = r.streams.get_mut(&s) else {
                    return error_response(
                        StatusCode::NOT_FOUND,
                        -32001,
                        "The stream is no longer kept",
                    );
                };
                // A resume never takes a stream from a connection still reading it.
                if st.tx.as_ref().is_some_and(|t| !t.is_closed()) {
                    return error_response(
                        StatusCode::CONFLICT,
                        -32600,
                        "The stream is being read by another connection",
                    );
                }
                for (n, data) in st.log.iter().filter(|(n, _)| *n > seq) {
                    let _ = tx.send(event(s, *n, data));
                }
                let live = st.open > 0 || st.standalone;
                if live && !ended {
                    st.tx = Some(tx);
                }
                if live && !st.standalone {
                    drop(r);
                    self.close_later(&owner, s);
                }
            }
            return Sse::new(Body::new(rx, owner, s)).into_response();
        }
        // 2026-07-28 has no GET stream; without a session there is nothing to listen to.
        let Some(conn) = conn else {
            return (
                StatusCode::METHOD_NOT_ALLOWED,
                [(header::ALLOW, "POST")],
                "no session: server-initiated messages go on each request's stream",
            )
                .into_response();
        };
        conn.touch();
        let s = self.next();
        {
            let mut r = conn.routes();
            let _ = tx.send(event(s, 0, ""));
            r.streams.insert(
                s,
                Stream {
                    tx: Some(tx),
                    log: Vec::new(),
                    seq: 0,
                    open: 0,
                    standalone: true,
                    json: false,
                    modern: false,
                },
            );
            // A new GET stream replaces the old one.
            if let Some(old) = r.standalone.replace(s)
                && let Some(o) = r.streams.get_mut(&old)
            {
                o.tx = None;
            }
            let backlog: Vec<Msg> = r.backlog.drain(..).collect();
            for m in backlog {
                r.deliver(s, &m, false);
            }
            if r.ended
                && let Some(st) = r.streams.get_mut(&s)
            {
                st.tx = None;
            }
        }
        self.owners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(s, Arc::clone(&conn));
        Sse::new(Body::new(rx, conn, s)).into_response()
    }

    /// With --sse-retry: closes stream `s` after that long if it is still waiting, with
    /// a retry hint; the agent comes back with Last-Event-ID.
    fn close_later(&self, conn: &Arc<Conn>, s: u64) {
        let Some(after) = self.sse_retry else {
            return;
        };
        let conn = Arc::clone(conn);
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let mut r = conn.routes();
            if let Some(st) = r.streams.get_mut(&s)
                && st.open > 0
                && let Some(tx) = st.tx.take()
            {
                let _ = tx.send(
                    Event::default()
                        .retry(after)
                        .comment("resume with Last-Event-ID"),
                );
            }
        });
    }

    async fn delete(self: Arc<Self>, h: HeaderMap) -> Response {
        let Some(sid) = header_str(&h, SESSION_HEADER) else {
            return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST")]).into_response();
        };
        let conn = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(sid);
        match conn {
            Some(c) => {
                c.end();
                StatusCode::OK.into_response()
            }
            None => error_response(StatusCode::NOT_FOUND, -32001, "Session not found"),
        }
    }

    /// Ends sessions nobody has used for `idle` (no request in flight, no GET stream).
    fn reap(&self, idle: Duration) {
        let now = Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|_, c| {
            let quiet =
                now.duration_since(*c.last_active.lock().unwrap_or_else(|e| e.into_inner())) > idle;
            let r = c.routes();
            let busy = !r.waiting.is_empty()
                || r.standalone
                    .and_then(|s| r.streams.get(&s))
                    .is_some_and(|st| st.tx.is_some());
            drop(r);
            if quiet && !busy {
                c.end();
                false
            } else {
                true
            }
        });
        drop(sessions);
        if let Ok(mut slots) = self.stateless.try_lock() {
            slots.retain(|_, c| {
                let quiet = now
                    .duration_since(*c.last_active.lock().unwrap_or_else(|e| e.into_inner()))
                    > idle;
                if quiet && c.routes().waiting.is_empty() {
                    c.end();
                    false
                } else {
                    true
                }
            });
        }
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        owners.retain(|s, c| c.routes().streams.contains_key(s));
    }
}

/// What the listener did, for the exit message.
pub struct Served {
    /// In the order the sessions were opened.
    pub sessions: Vec<Summary>,
    /// Streams agents resumed with Last-Event-ID.
    pub resumed: u64,
}

/// How the HTTP face keeps its agents.
#[derive(Debug, Clone)]
pub struct Listen {
    /// End a session no agent used this long.
    pub idle: Duration,
    /// Close a 2025-11-25 request's stream after this long without its answer.
    pub sse_retry: Option<Duration>,
    /// Sessions (with a session id, or a sessionless agent's) open at once at most.
    pub max_sessions: usize,
    /// All sessionless agents in one gateway session, sharing retry counts and disabled
    /// tools (the behaviour before issue #45).
    pub shared_stateless: bool,
    /// A client's request headers must be in within this, and each piece of its body
    /// within this of the one before (see `output::stop::serve_http`).
    pub read: Duration,
}

/// Serves streamable HTTP on `listener` (path `/mcp`, and `/`) until SIGINT/SIGTERM or
/// `until` resolves; then ends every session and returns their summaries.
pub async fn listen(
    cfg: Config,
    listener: tokio::net::TcpListener,
    opts: Listen,
    until: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<Served> {
    let Listen {
        idle,
        sse_retry,
        max_sessions,
        shared_stateless,
        read,
    } = opts;
    let local = listener
        .local_addr()
        .map_err(|e| Error::Bug(format!("the listener has no address: {e}")))?;
    let mut allowed_hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "[::1]".to_string(),
    ];
    allowed_hosts.push(local.ip().to_string());
    let face = Arc::new(Face {
        template: cfg,
        sessions: Mutex::new(HashMap::new()),
        stateless: tokio::sync::Mutex::new(HashMap::new()),
        shared_stateless,
        counter: AtomicU64::new(0),
        done: Mutex::new(Vec::new()),
        owners: Mutex::new(HashMap::new()),
        allowed_hosts,
        sessions_made: AtomicU64::new(0),
        resumed: AtomicU64::new(0),
        sse_retry,
        max_sessions,
    });
    use axum::extract::ConnectInfo;
    use axum::routing::post;
    let handler = post(
        |AxState(f): AxState<Arc<Face>>,
         ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
         h: HeaderMap,
         b: Bytes| f.post(h, peer, b),
    )
    .get(|AxState(f): AxState<Arc<Face>>, h: HeaderMap| f.get(h))
    .delete(|AxState(f): AxState<Arc<Face>>, h: HeaderMap| f.delete(h));
    let app = axum::Router::new()
        .route("/mcp", handler.clone())
        .route("/", handler)
        .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
        .with_state(Arc::clone(&face));
    let reaper = {
        let face = Arc::clone(&face);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1).min(idle));
            loop {
                tick.tick().await;
                face.reap(idle);
            }
        })
    };
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let stopper = {
        let face = Arc::clone(&face);
        tokio::spawn(async move {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            tokio::select! {
                _ = until => {}
                _ = tokio::signal::ctrl_c() => {}
                _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending::<()>().await } } => {}
            }
            crate::output::stop::second_signal_exits("gateway");
            // Every session ends (its streams close), then the server stops.
            for (_, c) in face
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain()
            {
                c.end();
            }
            for (_, c) in face.stateless.lock().await.drain() {
                c.end();
            }
            let _ = stop_tx.send(());
        })
    };
    // Once stopping, a connection that never finishes its request cannot hold the
    // gateway: the serve loop waits a bounded grace.
    crate::output::stop::serve_http(listener, app, read, async {
        let _ = stop_rx.await;
    })
    .await;
    stopper.abort();
    reaper.abort();
    let handles: Vec<_> = std::mem::take(&mut *face.done.lock().unwrap_or_else(|e| e.into_inner()));
    let mut sessions = Vec::new();
    for h in handles {
        match h.await {
            Ok(Ok(s)) => sessions.push(s),
            Ok(Err(e)) => return Err(e),
            Err(e) => return Err(Error::Bug(format!("a gateway session failed: {e}"))),
        }
    }
    Ok(Served {
        sessions,
        resumed: face.resumed.load(Ordering::Relaxed),
    })
}
