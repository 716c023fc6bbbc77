//! The real server, as two channels of JSON-RPC messages. Over stdio the messages are
//! the child's stdout lines, passed on byte for byte (`Msg` keeps each line's text), and
//! the agent's messages are written to its stdin as they came. Over streamable HTTP each
//! message is POSTed as it came and each answer passed on as the server wrote it (`http`).

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::input::child::Env;

use super::message::Msg;

/// What arrives from the server.
#[derive(Debug)]
pub enum Incoming {
    Message(Msg),
    /// A stdout line that is not JSON (a server bug; logged, not passed on).
    NotJson(String),
    /// The server is gone (exit status or transport error); `failed`: it exited with a
    /// status other than 0.
    Closed {
        why: String,
        failed: bool,
    },
}

pub struct Upstream {
    pub tx: mpsc::UnboundedSender<Msg>,
    pub rx: mpsc::UnboundedReceiver<Incoming>,
    /// Stops the server (kills a child process).
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
}

/// `sh -c "exec CMD"` with piped stdin and stdout; stderr stays the gateway's; the
/// environment is the allow-list plus `pass_env`.
pub fn stdio(command: &str, pass_env: &[String]) -> Result<Upstream> {
    let mut child = crate::input::child::command(command, Env::Allowed(pass_env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Error::Upstream(format!("cannot start the server `{command}`: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (tx, mut out_rx) = mpsc::unbounded_channel::<Msg>();
    let (in_tx, rx) = mpsc::unbounded_channel();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        while let Some(m) = out_rx.recv().await {
            let mut line = m.line().into_owned();
            line.push('\n');
            if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                break;
            }
        }
        // The agent is gone: closing stdin is how a stdio server is told to stop.
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        let mut killed = false;
        let why = loop {
            let next = tokio::select! {
                l = lines.next_line() => l,
                _ = &mut stopped, if !killed => {
                    killed = true;
                    let _ = child.start_kill();
                    continue;
                }
            };
            match next {
                Ok(Some(line)) if line.trim().is_empty() => {}
                Ok(Some(line)) => {
                    let item = match Msg::one(&line) {
                        Ok(m) => Incoming::Message(m),
                        Err(_) => Incoming::NotJson(line),
                    };
                    if in_tx.send(item).is_err() {
                        break None;
                    }
                }
                Ok(None) => break Some("closed its stdout".to_string()),
                Err(e) => break Some(format!("stdout read failed: {e}")),
            }
        };
        let status = child.wait().await.ok();
        if let Some(why) = why {
            let failed = status.is_some_and(|s| s.code().is_some_and(|c| c != 0));
            let status = match status {
                Some(s) => match s.code() {
                    Some(c) => format!("exited with status {c}"),
                    None => format!("was killed ({s})"),
                },
                None => "is gone".to_string(),
            };
            let why = format!("the server {status} ({why})");
            let _ = in_tx.send(Incoming::Closed { why, failed });
        }
    });
    Ok(Upstream {
        tx,
        rx,
        stop: Some(stop),
    })
}

/// Bytes of one answer the HTTP upstream may send: a JSON body, or one SSE event (the
/// HTTP face takes bodies of the same size).
const MAX_ANSWER: usize = 64 << 20;
/// How long connecting to the HTTP upstream may take.
const CONNECT: std::time::Duration = std::time::Duration::from_secs(10);
/// Failed attempts in a row to (re)open the session's GET stream before giving it up.
const GET_TRIES: u32 = 5;
/// The first protocol version whose requests carry their method as a header (SEP-2243).
const STANDARD_HEADERS: &str = "2026-07-28";

/// A streamable-HTTP MCP endpoint, spoken here rather than through an SDK's typed
/// messages so that what goes each way keeps its bytes (issue #45): each message is
/// POSTed as it came; its answer, a JSON body or an SSE stream of messages, is passed on
/// as the server wrote it. The session id the server gives goes on every later request;
/// after `notifications/initialized` the session's GET stream brings what the server
/// sends unasked. The protocol version header is the request's own (`_meta`,
/// 2026-07-28) or the one `initialize` agreed; from 2026-07-28 the method and the name
/// it acts on are headers too. Requests go out concurrently (a slow call does not hold
/// the others); notifications, responses and `initialize` in order.
pub fn http(url: &str) -> Result<Upstream> {
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT)
        .build()
        .map_err(|e| Error::Upstream(format!("{url}: cannot make an HTTP client: {e}")))?;
    let state = Arc::new(HttpSession {
        url: url.to_string(),
        client,
        session: Mutex::new(None),
        version: Mutex::new(None),
    });
    let (tx, mut out_rx) = mpsc::unbounded_channel::<Msg>();
    let (in_tx, rx) = mpsc::unbounded_channel();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut posts = tokio::task::JoinSet::new();
        let mut listening = false;
        let why = loop {
            tokio::select! {
                out = out_rx.recv() => {
                    let Some(m) = out else { break None };
                    let method = m.v.get("method").and_then(Value::as_str).map(str::to_string);
                    let request = method.is_some() && m.v.get("id").is_some_and(|i| !i.is_null());
                    if request && method.as_deref() != Some("initialize") {
                        let (s, tx) = (state.clone(), in_tx.clone());
                        posts.spawn(async move { s.post(m, &tx).await });
                        continue;
                    }
                    if let Err(why) = state.post(m, &in_tx).await {
                        break Some(why);
                    }
                    if method.as_deref() == Some("notifications/initialized") && !listening {
                        listening = true;
                        let (s, tx) = (state.clone(), in_tx.clone());
                        posts.spawn(async move { s.listen(&tx).await });
                    }
                }
                Some(done) = posts.join_next(), if !posts.is_empty() => {
                    if let Ok(Err(why)) = done {
                        break Some(why);
                    }
                }
                _ = &mut stopped => break None,
            }
        };
        posts.abort_all();
        state.end().await;
        if let Some(why) = why {
            let _ = in_tx.send(Incoming::Closed { why, failed: false });
        }
    });
    Ok(Upstream {
        tx,
        rx,
        stop: Some(stop),
    })
}

struct HttpSession {
    url: String,
    client: reqwest::Client,
    session: Mutex<Option<String>>,
    /// The version `initialize` agreed.
    version: Mutex<Option<String>>,
}

type Sink = mpsc::UnboundedSender<Incoming>;

impl HttpSession {
    fn session(&self) -> Option<String> {
        self.session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A request with the session's headers; `m`'s own protocol version first.
    fn request(&self, method: reqwest::Method, m: Option<&Value>) -> reqwest::RequestBuilder {
        let mut r = self.client.request(method, &self.url).header(
            reqwest::header::ACCEPT,
            "application/json, text/event-stream",
        );
        if let Some(s) = self.session() {
            r = r.header("mcp-session-id", s);
        }
        let own = m
            .and_then(|m| m.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let version = own.or_else(|| {
            self.version
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
        });
        if let Some(v) = &version {
            r = r.header("mcp-protocol-version", v.as_str());
        }
        if let (Some(m), Some(v)) = (m, &version)
            && v.as_str() >= STANDARD_HEADERS
            && let Some(method) = m.get("method").and_then(Value::as_str)
        {
            r = r.header("mcp-method", method);
            let key = match method {
                "tools/call" | "prompts/get" => Some("name"),
                "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
                "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
                _ => None,
            };
            if let Some(name) = key
                .and_then(|k| m.get("params")?.get(k)?.as_str())
                .filter(|n| reqwest::header::HeaderValue::from_str(n).is_ok())
            {
                r = r.header("mcp-name", name);
            }
        }
        r
    }

    /// POSTs one message and passes on whatever comes back. Err: the upstream is gone.
    async fn post(&self, m: Msg, tx: &Sink) -> std::result::Result<(), String> {
        let url = &self.url;
        let r = self
            .request(reqwest::Method::POST, Some(&m.v))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(m.text().into_owned())
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let status = r.status();
        if let Some(sid) = r
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
            if s.is_none() {
                *s = Some(sid.to_string());
            }
        }
        if status == reqwest::StatusCode::ACCEPTED || status == reqwest::StatusCode::NO_CONTENT {
            return Ok(());
        }
        if status == reqwest::StatusCode::NOT_FOUND && self.session().is_some() {
            return Err(format!("{url}: the server ended the session (HTTP 404)"));
        }
        if status.is_success() && is_event_stream(&r) {
            return self.events(r, tx, &mut None).await;
        }
        let body = read_capped(r)
            .await
            .map_err(|e| format!("{url}: reading the answer: {e}"))?;
        match Msg::parse(&body) {
            Ok((msgs, _)) if !msgs.is_empty() && msgs.iter().all(|m| m.v.is_object()) => {
                for m in msgs {
                    self.pass(m, tx);
                }
                Ok(())
            }
            _ if !status.is_success() => Err(format!(
                "{url}: HTTP {status}: {}",
                body.chars().take(300).collect::<String>()
            )),
            _ => {
                let _ = tx.send(Incoming::NotJson(body));
                Ok(())
            }
        }
    }

    /// The session's GET stream, reopened from the last event seen while the server
    /// keeps it; a server without one (405) sends everything on POST answers.
    async fn listen(&self, tx: &Sink) -> std::result::Result<(), String> {
        let (mut last, mut failed) = (None, 0);
        while failed < GET_TRIES {
            let mut r = self.request(reqwest::Method::GET, None);
            if let Some(id) = &last {
                r = r.header("last-event-id", id);
            }
            match r.send().await {
                Ok(r) if r.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED => return Ok(()),
                Ok(r) if r.status().is_success() && is_event_stream(&r) => {
                    let before = last.clone();
                    if self.events(r, tx, &mut last).await.is_err() || last == before {
                        failed += 1;
                    } else {
                        failed = 0;
                    }
                }
                _ => failed += 1,
            }
            tokio::time::sleep(std::time::Duration::from_millis(200 * u64::from(failed))).await;
        }
        Ok(())
    }

    /// Passes on each message of an SSE answer; `last` follows the event ids.
    async fn events(
        &self,
        r: reqwest::Response,
        tx: &Sink,
        last: &mut Option<String>,
    ) -> std::result::Result<(), String> {
        use futures::StreamExt;
        // sse-stream buffers an event until its blank line: bound what it may hold.
        let pending = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = pending.clone();
        let bytes = r.bytes_stream().map(move |b| {
            let b = b.map_err(std::io::Error::other)?;
            let n = seen.fetch_add(b.len(), std::sync::atomic::Ordering::Relaxed) + b.len();
            if n > MAX_ANSWER {
                return Err(std::io::Error::other(format!(
                    "an SSE event over {MAX_ANSWER} bytes"
                )));
            }
            Ok(b)
        });
        let mut events = sse_stream::SseStream::from_bytes_stream(bytes);
        while let Some(e) = events.next().await {
            let e = e.map_err(|e| format!("{}: {e}", self.url))?;
            pending.store(0, std::sync::atomic::Ordering::Relaxed);
            if e.id.is_some() {
                last.clone_from(&e.id);
            }
            let Some(data) = e.data.filter(|d| !d.trim().is_empty()) else {
                continue;
            };
            match Msg::parse(&data) {
                Ok((msgs, _)) => msgs.into_iter().for_each(|m| self.pass(m, tx)),
                Err(_) => {
                    let _ = tx.send(Incoming::NotJson(data));
                }
            }
        }
        Ok(())
    }

    /// One message from the server, on to the gateway; notes the version `initialize`
    /// agreed.
    fn pass(&self, m: Msg, tx: &Sink) {
        if let Some(v) =
            m.v.pointer("/result/protocolVersion")
                .and_then(Value::as_str)
        {
            let mut version = self.version.lock().unwrap_or_else(|e| e.into_inner());
            if version.is_none() {
                *version = Some(v.to_string());
            }
        }
        let _ = tx.send(Incoming::Message(m));
    }

    /// Ends the session (DELETE), if the server gave one; a server that does not
    /// answer within a second is left to expire it.
    async fn end(&self) {
        if self.session().is_some() {
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(1),
                self.request(reqwest::Method::DELETE, None).send(),
            )
            .await;
        }
    }
}

fn is_event_stream(r: &reqwest::Response) -> bool {
    r.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
}

/// A JSON answer's text, refused past `MAX_ANSWER` bytes.
async fn read_capped(mut r: reqwest::Response) -> std::result::Result<String, String> {
    let mut body = Vec::new();
    while let Some(chunk) = r.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(format!("an answer over {MAX_ANSWER} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    String::from_utf8(body).map_err(|e| format!("not UTF-8: {e}"))
}
