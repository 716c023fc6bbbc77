//! The real server, as two channels of JSON-RPC messages. Over stdio the messages are
//! the child's stdout lines, passed on byte for byte (`Msg` keeps each line's text), and
//! the agent's messages are written to its stdin as they came. Over HTTP they go through
//! rmcp's streamable-HTTP client transport, which speaks the session and SSE parts of the
//! protocol and writes and reads messages through its own types: there the bytes are
//! rmcp's serialisation (docs/gateway.md says so).

use std::process::Stdio;

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

/// A streamable-HTTP MCP endpoint.
pub fn http(url: &str) -> Result<Upstream> {
    use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
    use rmcp::transport::Transport;
    let mut transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string());
    let (tx, mut out_rx) = mpsc::unbounded_channel::<Msg>();
    let (in_tx, rx) = mpsc::unbounded_channel();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let url = url.to_string();
    tokio::spawn(async move {
        let why = loop {
            tokio::select! {
                out = out_rx.recv() => {
                    let Some(m) = out else { break None };
                    let v = m.v;
                    match serde_json::from_value::<ClientJsonRpcMessage>(v.clone()) {
                        Ok(m) => {
                            if let Err(e) = transport.send(m).await {
                                break Some(format!("{url}: send failed: {e}"));
                            }
                        }
                        Err(e) => {
                            let _ = in_tx.send(Incoming::NotJson(format!(
                                "not sent to {url}: not an MCP message ({e}): {v}"
                            )));
                        }
                    }
                }
                m = transport.receive() => {
                    let Some(m): Option<ServerJsonRpcMessage> = m else {
                        break Some(format!("{url}: the connection closed"));
                    };
                    match serde_json::to_value(&m) {
                        Ok(v) => { let _ = in_tx.send(Incoming::Message(Msg::built(v))); }
                        Err(e) => { let _ = in_tx.send(Incoming::NotJson(e.to_string())); }
                    }
                }
                _ = &mut stopped => break None,
            }
        };
        let _ = transport.close().await;
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
