//! `collect`'s faces: OTLP/HTTP (`POST /v1/traces`, protobuf or JSON, gzip or not) and,
//! when asked, OTLP/gRPC, both feeding one [`Collector`] that writes traces as they
//! finish; stopped by SIGINT, SIGTERM or a set duration.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;

use super::collect::{CollectOptions, Collector, Refused, Stats, archive_dir, decode_body};
use crate::error::{Error, Result};
use crate::output::stop::{GRACE, second_signal_exits, serve_http, within};

/// Where to listen and for how long.
#[derive(Debug, Clone)]
pub struct Listen {
    pub http: SocketAddr,
    pub grpc: Option<SocketAddr>,
    /// Largest request body accepted, as sent and once inflated.
    pub max_bytes: usize,
    /// Stop by itself after this long (else at SIGINT or SIGTERM).
    pub duration: Option<Duration>,
    /// A client's request headers must be in within this, and each piece of its body
    /// within this of the one before (HTTP; see `output::stop::serve_http`).
    pub read: Duration,
}

/// The addresses actually bound (port 0 picks a free one).
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    pub http: SocketAddr,
    pub grpc: Option<SocketAddr>,
}

/// Receives until stopped, writing finished traces as they finish (said on stderr) and
/// everything held at the end; `ready` is told the bound addresses once both faces
/// listen. Returns what was received (see [`usable`]).
pub async fn serve(
    opts: CollectOptions,
    listen: Listen,
    ready: impl FnOnce(Bound),
) -> Result<Stats> {
    let idle = opts.idle;
    let collector = Collector::new(opts);
    let bind = |a: SocketAddr, what: &'static str| async move {
        tokio::net::TcpListener::bind(a)
            .await
            .map_err(|e| Error::Config(format!("cannot listen on {a}{what}: {e}")))
    };
    let listener = bind(listen.http, "").await?;
    let http_addr = listener
        .local_addr()
        .map_err(|e| Error::io(listen.http, e))?;
    let app = axum::Router::new()
        .route("/v1/traces", axum::routing::post(traces))
        .layer(DefaultBodyLimit::max(listen.max_bytes))
        .with_state((collector.clone(), listen.max_bytes));
    let (stop_tx, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut rx = stop_tx.subscribe();
    let read = listen.read;
    let http = tokio::spawn(async move {
        serve_http(listener, app, read, async move {
            let _ = rx.recv().await;
        })
        .await
    });
    let (grpc, grpc_addr) = match listen.grpc {
        None => (None, None),
        Some(a) => {
            let l = bind(a, " (gRPC)").await?;
            let ga = l.local_addr().map_err(|e| Error::io(a, e))?;
            let mut rx = stop_tx.subscribe();
            let svc = super::grpc::TraceService::new(collector.clone(), listen.max_bytes);
            let task = tokio::spawn(async move {
                tonic::transport::Server::builder()
                    .add_service(svc)
                    .serve_with_incoming_shutdown(
                        tokio_stream::wrappers::TcpListenerStream::new(l),
                        async move {
                            let _ = rx.recv().await;
                        },
                    )
                    .await
            });
            (Some(task), Some(ga))
        }
    };
    ready(Bound {
        http: http_addr,
        grpc: grpc_addr,
    });
    // Write finished traces as they finish.
    let flusher = {
        let c = collector.clone();
        let every = (idle / 2).clamp(Duration::from_millis(50), Duration::from_secs(1));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let c = c.clone();
                match tokio::task::spawn_blocking(move || c.flush(false)).await {
                    Ok(Ok(Some(p))) => eprintln!("collect: wrote {}", p.display()),
                    Ok(Ok(None)) => {}
                    Ok(Err(e)) => eprintln!("collect: {e}"),
                    Err(e) => eprintln!("collect: {e}"),
                }
            }
        })
    };
    stopped(listen.duration).await;
    second_signal_exits("collect");
    let _ = stop_tx.send(());
    // A client that stopped mid-body holds its connection open: the serve loop waits a
    // bounded grace, then what arrived is written anyway.
    if let Ok(cut) = http.await
        && cut > 0
    {
        eprintln!(
            "collect: {cut} connection(s) still open after {} s; stopping without them",
            GRACE.as_secs()
        );
    }
    if let Some(g) = grpc {
        let _ = within(GRACE, g).await;
    }
    flusher.abort();
    let c = collector.clone();
    let last = tokio::task::spawn_blocking(move || c.flush(true))
        .await
        .map_err(|e| Error::Bug(format!("collect: the last write failed: {e}")))??;
    if let Some(p) = last {
        eprintln!("collect: wrote {}", p.display());
    }
    Ok(collector.stats())
}

/// An input error when `st` holds nothing usable: no span came to `http`, or none gave a
/// step (import's rule: spans no convention describes are nothing usable).
pub fn usable(st: &Stats, http: SocketAddr, out: &std::path::Path) -> Result<()> {
    if st.spans == 0 {
        return Err(Error::Input(format!(
            "received no spans on http://{http}/v1/traces: is the agent's \
             OTEL_EXPORTER_OTLP_ENDPOINT http://{http}, and does it flush before exiting?"
        )));
    }
    if st.steps == 0 {
        return Err(Error::Input(format!(
            "received {} span(s) but none gave a step: no tool call or model span that the \
             OpenTelemetry GenAI, MCP, OpenInference or OpenLLMetry conventions describe \
             (docs/importers.md); the requests are kept in {}",
            st.spans,
            archive_dir(out).display()
        )));
    }
    Ok(())
}

async fn traces(
    State((c, max_bytes)): State<(Arc<Collector>, usize)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let ctype = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/x-protobuf")
        .to_ascii_lowercase();
    let gzip = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("gzip"));
    let json = ctype.starts_with("application/json");
    let req = match decode_body(&ctype, gzip, &body, max_bytes) {
        Ok(r) => r,
        Err(why) => {
            let status = match why {
                Refused::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
                Refused::Bad(_) => StatusCode::BAD_REQUEST,
            };
            let kept = c.reject(&body, &why.to_string());
            eprintln!(
                "collect: refused a request ({why}){}",
                kept.map(|p| format!("; its body is kept in {}", p.display()))
                    .unwrap_or_default()
            );
            return (status, why.to_string()).into_response();
        }
    };
    // A plain protobuf body is archived as it came (no second encoding).
    let raw = (!json && !gzip && !body.starts_with(&[0x1f, 0x8b])).then_some(&body[..]);
    if let Err(e) = c.accept(req, raw) {
        eprintln!("collect: {e}");
        // The exporter retries on 503; the archive could not be written.
        return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response();
    }
    if json {
        ([(header::CONTENT_TYPE, "application/json")], "{}").into_response()
    } else {
        (
            [(header::CONTENT_TYPE, "application/x-protobuf")],
            ExportTraceServiceResponse::default().encode_to_vec(),
        )
            .into_response()
    }
}

async fn stopped(duration: Option<Duration>) {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    let timer = async {
        match duration {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = timer => {}
    }
}
