//! Tool snapshots: taken from a live MCP server (`rmcp`, over stdio or streamable HTTP),
//! read from a saved tools/list JSON file, or read from stored `tool_snapshots` rows; and
//! written as `tool_snapshots` rows.

use std::time::Duration;

use arrow::array::RecordBatch;
use groundcheck_udfs::changes::surface::Surface;
use groundcheck_udfs::changes::{Tool, tools_from_json};
use object_store::ObjectStoreExt;
use rmcp::ServiceExt;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::input::child::{self, Env};
use crate::model::TOOL_SNAPSHOTS;
use crate::store::location::Location;

/// One server's tools at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Server name (from the rows, the server's own serverInfo, or the user).
    pub server: Option<String>,
    pub server_version: Option<String>,
    /// RFC 3339, when known.
    pub captured_at: Option<String>,
    /// Where it came from, for messages.
    pub source: String,
    pub tools: Vec<Tool>,
    /// Prompts, resources, templates, instructions and capabilities, when the source
    /// gives them (a live server or a capture file; stored rows hold tools only).
    pub surface: Option<Surface>,
}

/// Where a snapshot is taken from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `stdio:CMD`: a server started with `sh -c "exec CMD"`.
    Stdio(String),
    /// An `http://` or `https://` streamable-HTTP endpoint.
    Http(String),
    /// A `.json` tools/list result (`{"tools": [...]}`, a JSON-RPC response, or an array).
    ToolsList(String),
    /// Stored `tool_snapshots` rows (JSONL, Parquet, a folder, a glob, s3://), optionally
    /// `PATH@CAPTURED_AT` for one capture (default: the latest).
    Stored { path: String, at: Option<String> },
}

impl Source {
    pub fn parse(s: &str) -> Source {
        if let Some(cmd) = s.strip_prefix("stdio:") {
            return Source::Stdio(cmd.trim().to_string());
        }
        if s.starts_with("http://") || s.starts_with("https://") {
            return Source::Http(s.to_string());
        }
        if s.to_ascii_lowercase().ends_with(".json") {
            return Source::ToolsList(s.to_string());
        }
        match s.rsplit_once('@') {
            Some((path, at)) if at.len() >= 10 && at.as_bytes()[4] == b'-' => Source::Stored {
                path: path.to_string(),
                at: Some(at.to_string()),
            },
            _ => Source::Stored {
                path: s.to_string(),
                at: None,
            },
        }
    }
}

/// One argument quoted for `sh` (left bare when it needs no quoting).
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@=+,%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `stdio:CMD` for a command given as arguments (after `--`), each quoted for `sh`.
pub fn stdio_source(command: &[String]) -> String {
    let words: Vec<String> = command.iter().map(|s| shell_quote(s)).collect();
    format!("stdio:{}", words.join(" "))
}

/// Takes or reads a snapshot. `server` picks one server out of stored rows that hold
/// several; `timeout` bounds a live connection.
pub async fn load(
    spec: &str,
    server: Option<&str>,
    timeout: Duration,
    pass_env: &[String],
) -> Result<Snapshot> {
    match Source::parse(spec) {
        Source::Stdio(_) | Source::Http(_) => live(spec, timeout, pass_env).await,
        Source::ToolsList(path) => tools_list_file(&path).await,
        Source::Stored { path, at } => stored(&path, at.as_deref(), server).await,
    }
}

/// An error as a sentence: rmcp's messages name Rust types
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: …`); the sentence
/// keeps what happened and the root cause (`Connection refused (os error 111)`).
pub fn sentence(e: &(dyn std::error::Error + 'static)) -> String {
    let mut top = e.to_string();
    // Drop bracketed type names and the "Send message error" framing.
    while let Some(start) = top.find(" [") {
        let Some(len) = top[start..].find("] ") else {
            break;
        };
        top.replace_range(start..start + len + 1, "");
    }
    let top = top
        .replace("Send message error Transport error: ", "")
        .replace("Send message error Transport error:", "");
    let mut root = None;
    let mut cur = e.source();
    while let Some(c) = cur {
        root = Some(c.to_string());
        cur = c.source();
    }
    match root {
        Some(r) if !top.contains(&r) => format!("{top} ({r})"),
        _ => top,
    }
}

/// A live MCP client session.
pub type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// Connects to `stdio:CMD` or an http(s) URL; returns the client and a display name.
/// A stdio server gets the allow-listed environment and `pass_env` (`input::child`).
pub async fn connect(
    spec: &str,
    timeout: Duration,
    pass_env: &[String],
) -> Result<(Client, String)> {
    let source = spec.to_string();
    let fail = |what: &str, e: String| Error::Upstream(format!("{source}: {what}: {e}"));
    let work = async {
        match Source::parse(spec) {
            Source::Stdio(cmd) => {
                let c = child::command(&cmd, Env::Allowed(pass_env));
                let (transport, _) = rmcp::transport::TokioChildProcess::builder(c)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| fail("cannot start the server", e.to_string()))?;
                ().serve(transport)
                    .await
                    .map_err(|e| fail("MCP initialize failed", sentence(&e)))
            }
            Source::Http(url) => {
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
                ().serve(transport)
                    .await
                    .map_err(|e| fail("MCP initialize failed", sentence(&e)))
            }
            _ => Err(Error::Config(format!(
                "{source}: not a live server (expected stdio:CMD or an http(s):// URL)"
            ))),
        }
    };
    let client = tokio::time::timeout(timeout, work).await.map_err(|_| {
        Error::Upstream(format!(
            "{source}: no MCP initialize answer within {timeout:?}"
        ))
    })??;
    Ok((client, source))
}

/// The server's name and version from its initialize answer.
pub fn server_info(client: &Client) -> (Option<String>, Option<String>) {
    let info = client.peer_info();
    let imp = info.as_ref().and_then(|i| i.server_info.as_ref());
    (imp.map(|s| s.name.clone()), imp.map(|s| s.version.clone()))
}

async fn live(spec: &str, timeout: Duration, pass_env: &[String]) -> Result<Snapshot> {
    let (client, source) = connect(spec, timeout, pass_env).await?;
    let fail = |what: &str, e: String| Error::Upstream(format!("{source}: {what}: {e}"));
    let listed = tokio::time::timeout(timeout, client.list_all_tools())
        .await
        .map_err(|_| Error::Upstream(format!("{source}: no tools/list answer within {timeout:?}")))
        .and_then(|r| r.map_err(|e| fail("tools/list failed", e.to_string())));
    let (server, server_version) = server_info(&client);
    let surface = live_surface(&client, &source, timeout).await;
    let _ = client.cancel().await;
    let surface = surface?;
    let mut tools = Vec::new();
    for t in listed? {
        let v = serde_json::to_value(&t).map_err(|e| fail("bad tool", e.to_string()))?;
        tools.push(Tool::from_json(&v).map_err(|e| fail("bad tool", e))?);
    }
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Snapshot {
        server,
        server_version,
        captured_at: None,
        source,
        tools,
        surface: Some(surface),
    })
}

/// The live server's prompts, resources and templates (each read only when its
/// capability is offered), instructions and capabilities.
async fn live_surface(client: &Client, source: &str, timeout: Duration) -> Result<Surface> {
    let fail = |what: &str, e: String| Error::Upstream(format!("{source}: {what}: {e}"));
    let info = client.peer_info();
    let caps = info.as_ref().map(|i| i.capabilities.clone());
    let mut surface = Surface {
        instructions: info.as_ref().and_then(|i| i.instructions.clone()),
        capabilities: caps
            .as_ref()
            .map(|c| serde_json::to_value(c).unwrap_or(Value::Null)),
        ..Surface::default()
    };
    fn within<T>(
        r: std::result::Result<T, tokio::time::error::Elapsed>,
        source: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<T> {
        r.map_err(|_| Error::Upstream(format!("{source}: no {what} answer within {timeout:?}")))
    }
    // The rmcp item types differ; each is serialized as it came.
    macro_rules! values {
        ($items:expr) => {
            $items
                .iter()
                .map(|x| serde_json::to_value(x).unwrap_or(Value::Null))
                .collect()
        };
    }
    if caps.as_ref().is_some_and(|c| c.prompts.is_some()) {
        let r = tokio::time::timeout(timeout, client.list_all_prompts()).await;
        let p = within(r, source, "prompts/list", timeout)?
            .map_err(|e| fail("prompts/list failed", e.to_string()))?;
        surface.prompts = values!(p);
    }
    if caps.as_ref().is_some_and(|c| c.resources.is_some()) {
        let r = tokio::time::timeout(timeout, client.list_all_resources()).await;
        let r = within(r, source, "resources/list", timeout)?
            .map_err(|e| fail("resources/list failed", e.to_string()))?;
        surface.resources = values!(r);
        let t = tokio::time::timeout(timeout, client.list_all_resource_templates()).await;
        let t = within(t, source, "resources/templates/list", timeout)?
            .map_err(|e| fail("resources/templates/list failed", e.to_string()))?;
        surface.templates = values!(t);
    }
    Ok(surface)
}

async fn read_bytes(path: &str) -> Result<(String, bytes::Bytes)> {
    let loc = Location::parse(path)?;
    let ctx = crate::engine::context::new_context()?;
    let store = ctx.runtime_env().object_store(&loc.store_url)?;
    let listed = loc
        .head(&store)
        .await
        .ok_or_else(|| Error::Input(format!("{path}: no such file")))?;
    let bytes = store
        .get(&listed.meta.location)
        .await
        .map_err(|e| Error::store(path, e))?
        .bytes()
        .await
        .map_err(|e| Error::store(path, e))?;
    Ok((listed.display, bytes))
}

async fn tools_list_file(path: &str) -> Result<Snapshot> {
    let (display, bytes) = read_bytes(path).await?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
        let why = crate::input::import::json_error(&e);
        Error::Input(format!(
            "{display}:{}:{}: not JSON: {why}",
            e.line(),
            e.column()
        ))
    })?;
    let tools = tools_from_json(&v).map_err(|e| Error::Input(format!("{display}: {e}")))?;
    let info = v
        .get("serverInfo")
        .or_else(|| v.get("result").and_then(|r| r.get("serverInfo")))
        .or_else(|| v.get("initialize").and_then(|r| r.get("serverInfo")));
    let s = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Ok(Snapshot {
        server: s("name"),
        server_version: s("version"),
        captured_at: v
            .get("captured_at")
            .and_then(Value::as_str)
            .map(str::to_string),
        source: path.to_string(),
        tools,
        surface: Surface::from_json(&v),
    })
}

/// The latest snapshot of every server in stored rows (a project's `snapshots` folder):
/// what a model sees beside the server a drift run judges.
pub async fn project(path: &str) -> Result<Vec<Snapshot>> {
    let session = crate::Session::open_table(&TOOL_SNAPSHOTS, path).await?;
    let batches = crate::engine::query::collect(
        &session.ctx,
        "SELECT DISTINCT server FROM tool_snapshots ORDER BY server",
    )
    .await?
    .1;
    let mut out = Vec::new();
    for r in crate::engine::query::rows_as_json(&batches)? {
        if let Some(server) = r.get("server").and_then(Value::as_str) {
            out.push(stored(path, None, Some(server)).await?);
        }
    }
    if out.is_empty() {
        return Err(Error::Input(format!("{path}: no snapshot rows")));
    }
    Ok(out)
}

async fn stored(path: &str, at: Option<&str>, server: Option<&str>) -> Result<Snapshot> {
    let session = crate::Session::open_table(&TOOL_SNAPSHOTS, path).await?;
    let batches = crate::engine::query::collect(
        &session.ctx,
        "SELECT server, CAST(captured_at AS VARCHAR) AS captured_at, tool, title, description, \
         input_schema, output_schema, annotations, version FROM tool_snapshots ORDER BY server, captured_at, tool",
    )
    .await?
    .1;
    let rows = crate::engine::query::rows_as_json(&batches)?;
    let servers: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter_map(|r| r.get("server").and_then(Value::as_str))
        .collect();
    let server = match server {
        Some(s) if servers.contains(s) => s.to_string(),
        Some(s) => {
            return Err(Error::Input(format!(
                "{path}: no snapshot of server '{s}' (servers: {})",
                servers.iter().copied().collect::<Vec<_>>().join(", ")
            )));
        }
        None if servers.len() == 1 => servers.iter().next().unwrap().to_string(),
        None if servers.is_empty() => {
            return Err(Error::Input(format!("{path}: no snapshot rows")));
        }
        None => {
            return Err(Error::Input(format!(
                "{path} holds snapshots of several servers ({}); pick one with --server",
                servers.iter().copied().collect::<Vec<_>>().join(", ")
            )));
        }
    };
    let mine: Vec<&Map<String, Value>> = rows
        .iter()
        .filter(|r| r.get("server").and_then(Value::as_str) == Some(server.as_str()))
        .collect();
    let captures: Vec<&str> = mine
        .iter()
        .filter_map(|r| r.get("captured_at").and_then(Value::as_str))
        .collect();
    let when = match at {
        None => captures
            .iter()
            .max()
            .copied()
            .unwrap_or_default()
            .to_string(),
        Some(at) => {
            let want = chrono::DateTime::parse_from_rfc3339(at)
                .map_err(|e| Error::Config(format!("{path}@{at}: not an RFC 3339 time: {e}")))?;
            captures
                .iter()
                .find(|c| chrono::DateTime::parse_from_rfc3339(c).is_ok_and(|c| c == want))
                .map(|c| c.to_string())
                .ok_or_else(|| {
                    let mut all: Vec<&str> = captures.clone();
                    all.dedup();
                    Error::Input(format!(
                        "{path}: server '{server}' has no snapshot captured at {at} (captures: {})",
                        all.join(", ")
                    ))
                })?
        }
    };
    let mut tools = Vec::new();
    for r in mine
        .iter()
        .filter(|r| r.get("captured_at").and_then(Value::as_str) == Some(when.as_str()))
    {
        let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
        let json = |k: &str| -> Result<Option<Value>> {
            text(k)
                .map(|t| {
                    serde_json::from_str(&t)
                        .map_err(|e| Error::Input(format!("{path}: {k} is not JSON: {e}")))
                })
                .transpose()
        };
        tools.push(Tool {
            name: text("tool").unwrap_or_default(),
            title: text("title"),
            description: text("description"),
            input_schema: json("input_schema")?,
            output_schema: json("output_schema")?,
            annotations: json("annotations")?,
            version: text("version"),
        });
    }
    Ok(Snapshot {
        server: Some(server),
        // tool_snapshots rows carry tool versions, not the server's.
        server_version: None,
        captured_at: Some(when),
        source: path.to_string(),
        tools,
        surface: None,
    })
}

/// The whole surface as one JSON document that `tools_list_file` reads back (a tools/list
/// result with serverInfo, plus the surface's lists): the baseline a CI gate commits.
pub fn capture_json(snap: &Snapshot, server: &str, captured_at: &str) -> Value {
    let mut doc = Map::new();
    let mut info = Map::new();
    info.insert("name".into(), Value::String(server.to_string()));
    if let Some(v) = &snap.server_version {
        info.insert("version".into(), Value::String(v.clone()));
    }
    doc.insert("serverInfo".into(), Value::Object(info));
    doc.insert("captured_at".into(), Value::String(captured_at.to_string()));
    doc.insert(
        "tools".into(),
        Value::Array(snap.tools.iter().map(Tool::to_json).collect()),
    );
    if let Some(s) = &snap.surface {
        doc.insert("prompts".into(), Value::Array(s.prompts.clone()));
        doc.insert("resources".into(), Value::Array(s.resources.clone()));
        doc.insert(
            "resourceTemplates".into(),
            Value::Array(s.templates.clone()),
        );
        if let Some(i) = &s.instructions {
            doc.insert("instructions".into(), Value::String(i.clone()));
        }
        doc.insert(
            "capabilities".into(),
            s.capabilities.clone().unwrap_or(Value::Object(Map::new())),
        );
    }
    Value::Object(doc)
}

/// The snapshot as `tool_snapshots` rows: one JSON object per tool, JSON columns as
/// objects, with both hashes.
pub fn rows(snap: &Snapshot, server: &str, captured_at: &str) -> Vec<Value> {
    snap.tools
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("server".into(), server.into());
            m.insert("captured_at".into(), captured_at.into());
            m.insert("tool".into(), t.name.clone().into());
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    m.insert(k.into(), v);
                }
            };
            put("title", t.title.clone().map(Value::from));
            put("description", t.description.clone().map(Value::from));
            put("input_schema", t.input_schema.clone());
            put("output_schema", t.output_schema.clone());
            put("annotations", t.annotations.clone());
            put("version", t.version.clone().map(Value::from));
            m.insert("text_hash".into(), t.text_hash().into());
            m.insert("schema_hash".into(), t.schema_hash().into());
            Value::Object(m)
        })
        .collect()
}

/// The rows as an Arrow batch of the `tool_snapshots` schema (JSON columns as text).
pub fn batch(rows: &[Value]) -> Result<RecordBatch> {
    crate::input::import::rows_batch(&TOOL_SNAPSHOTS, rows)
}

/// How a snapshot is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// `OUT/snapshots/SERVER/CAPTURED_AT.parquet` (or `.jsonl`): rows of tool_snapshots.
    Rows { jsonl: bool },
    /// One JSON document (the server's whole surface) at a path of the caller's.
    Capture,
}

/// Stores `snap` of `server` captured at `captured_at` (RFC 3339, to the second) as a new
/// file: under `out/snapshots/SERVER/`, or at `out` itself for a capture. Snapshots never
/// overwrite one another: when `wait` a capture in a second already taken waits for the
/// next one (and the time moves with it), else it is a usage error. Returns the file and
/// the time it was stored under.
pub async fn store(
    snap: &Snapshot,
    server: &str,
    mut captured_at: String,
    wait: bool,
    out: &std::path::Path,
    how: Stored,
) -> Result<(std::path::PathBuf, String)> {
    let write = |path: &std::path::Path, text: String| {
        crate::output::write_atomic(path, text.as_bytes()).map_err(|e| Error::io(path.display(), e))
    };
    let jsonl = match how {
        Stored::Capture => {
            let doc = capture_json(snap, server, &captured_at);
            let text = serde_json::to_string_pretty(&doc)
                .map_err(|e| Error::Input(format!("cannot write the capture: {e}")))?;
            write(out, text + "\n")?;
            return Ok((out.to_path_buf(), captured_at));
        }
        Stored::Rows { jsonl } => jsonl,
    };
    // The folder name is the server's name made safe for a path (it may hold '/').
    let folder: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = out.join("snapshots").join(folder);
    let ext = if jsonl { "jsonl" } else { "parquet" };
    let taken = |at: &str| dir.join(format!("{}.{ext}", at.replace(':', ""))).exists();
    while taken(&captured_at) {
        if !wait {
            return Err(Error::Config(format!(
                "a snapshot of {server} at {captured_at} is already in {}: snapshots never \
                 overwrite one another; pick another --captured-at",
                dir.display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        captured_at = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    }
    let rows = rows(snap, server, &captured_at);
    let path = dir.join(format!("{}.{ext}", captured_at.replace(':', "")));
    if jsonl {
        let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
        write(&path, text)?;
    } else {
        let b = batch(&rows)?;
        let mut f = crate::output::ParquetFile::create(&path, b.schema())?;
        f.write(&b)?;
        f.finish()?;
    }
    Ok((path, captured_at))
}
