//! `groundcheck collect`: an OTLP receiver agents export to directly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::print::outln;
use anyhow::Context;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use clap::Args as ClapArgs;
use groundcheck::input::import::collect::{CollectOptions, Collector, Refused, decode_body};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;

/// Receive OpenTelemetry traces from agents over OTLP/HTTP (`POST /v1/traces`, protobuf
/// or JSON, gzip or not) and OTLP/gRPC, and write them as the `steps` table as traces
/// complete: OUT/traces/collect-*.parquet, one file per batch of finished traces (a trace
/// is finished when no span of it came for --idle seconds; SIGINT or SIGTERM writes
/// everything held and stops). Every request is also kept, as protobuf, in
/// OUT/collect/spans-*.otlp.pb (`import otlp` reads it). Point an agent at it with
/// `OTEL_EXPORTER_OTLP_ENDPOINT=http://ADDRESS`. Exit 0 when it stopped having received
/// spans, 2 when it received none.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Address for OTLP/HTTP; port 0 picks a free one (printed on start).
    #[arg(long, default_value = "127.0.0.1:4318")]
    listen: SocketAddr,

    /// Also serve OTLP/gRPC on this address (4317 by convention).
    #[arg(long, value_name = "ADDRESS")]
    grpc: Option<SocketAddr>,

    /// Folder for outputs.
    #[arg(long, default_value = "out")]
    pub(crate) out: PathBuf,

    /// run_id for every step.
    #[arg(long, default_value = "collect")]
    run_id: String,

    #[command(flatten)]
    tie: super::import::Tie,

    /// Seconds without a new span of a trace after which the trace is written.
    #[arg(long, default_value_t = 5.0, value_name = "SECS", value_parser = super::common::parse_seconds)]
    idle: f64,

    /// The archive of received requests rotates to a new file past this many MiB.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    rotate_mib: u64,

    /// Largest request body accepted, in MiB, as sent and once inflated from gzip (larger:
    /// HTTP 413, gRPC RESOURCE_EXHAUSTED).
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    max_body_mib: usize,

    /// Stop by itself after this many seconds (default: run until SIGINT or SIGTERM).
    #[arg(long, value_name = "SECS", value_parser = super::common::parse_seconds)]
    duration: Option<f64>,
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

async fn stopped(duration: Option<f64>) {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    let timer = async {
        match duration {
            Some(s) => tokio::time::sleep(Duration::from_secs_f64(s.max(0.0))).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = timer => {}
    }
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let import = args.tie.options(&args.run_id).await?;
    let collector = Collector::new(CollectOptions {
        out: args.out.clone(),
        import,
        idle: Duration::from_secs_f64(args.idle.max(0.0)),
        rotate_bytes: args.rotate_mib.max(1) * 1024 * 1024,
    });
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    let max_bytes = args.max_body_mib.max(1) * 1024 * 1024;
    let app = axum::Router::new()
        .route("/v1/traces", axum::routing::post(traces))
        .layer(DefaultBodyLimit::max(max_bytes))
        .with_state((collector.clone(), max_bytes));
    let (stop_tx, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut rx = stop_tx.subscribe();
    let http = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.recv().await;
            })
            .await
    });
    let grpc = match args.grpc {
        None => None,
        Some(a) => {
            let l = tokio::net::TcpListener::bind(a)
                .await
                .with_context(|| format!("cannot listen on {a} (gRPC)"))?;
            let ga = l.local_addr()?;
            outln!("collect: OTLP/gRPC on {ga}");
            let mut rx = stop_tx.subscribe();
            let svc =
                groundcheck::input::import::grpc::TraceService::new(collector.clone(), max_bytes);
            Some(tokio::spawn(async move {
                tonic::transport::Server::builder()
                    .add_service(svc)
                    .serve_with_incoming_shutdown(
                        tokio_stream::wrappers::TcpListenerStream::new(l),
                        async move {
                            let _ = rx.recv().await;
                        },
                    )
                    .await
            }))
        }
    };
    outln!(
        "collect: OTLP/HTTP on http://{addr}/v1/traces; point agents at it with \
         OTEL_EXPORTER_OTLP_ENDPOINT=http://{addr}"
    );
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    // Write finished traces as they finish.
    let flusher = {
        let c = collector.clone();
        let every = Duration::from_secs_f64((args.idle / 2.0).clamp(0.05, 1.0));
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
    stopped(args.duration).await;
    groundcheck::output::stop::second_signal_exits("collect");
    let _ = stop_tx.send(());
    // A client that stopped mid-body holds its connection open: wait a bounded grace,
    // then write what arrived anyway.
    use groundcheck::output::stop::{GRACE, within};
    if within(GRACE, http).await.is_none() {
        eprintln!(
            "collect: a connection still open after {} s; stopping without it",
            GRACE.as_secs()
        );
    }
    if let Some(g) = grpc {
        let _ = within(GRACE, g).await;
    }
    flusher.abort();
    let c = collector.clone();
    if let Some(p) = tokio::task::spawn_blocking(move || c.flush(true)).await?? {
        eprintln!("collect: wrote {}", p.display());
    }
    let st = collector.stats();
    outln!(
        "collect: {} request(s), {} span(s), {} trace(s) ({} tied to a case), {} step(s) in {} file(s) under {}; \
         requests kept in {}",
        st.requests,
        st.spans,
        st.traces,
        st.traces_with_case,
        st.steps,
        st.files.len(),
        args.out.join("traces").display(),
        groundcheck::input::import::collect::archive_dir(&args.out).display()
    );
    if st.late_spans > 0 {
        outln!(
            "collect: {} span(s) came after their trace was written (raise --idle); they are in the archive",
            st.late_spans
        );
    }
    if st.bad_requests > 0 {
        outln!(
            "collect: {} request(s) refused; their bodies are in {}",
            st.bad_requests,
            groundcheck::input::import::collect::archive_dir(&args.out)
                .join("rejects")
                .display()
        );
    }
    if st.spans == 0 {
        anyhow::bail!(
            "received no spans on http://{addr}/v1/traces: is the agent's \
             OTEL_EXPORTER_OTLP_ENDPOINT http://{addr}, and does it flush before exiting?"
        );
    }
    if st.steps == 0 {
        // import's rule: spans no convention turns into a step are nothing usable.
        anyhow::bail!(
            "received {} span(s) but none gave a step: no tool call or model span that the \
             OpenTelemetry GenAI, MCP, OpenInference or OpenLLMetry conventions describe \
             (docs/importers.md); the requests are kept in {}",
            st.spans,
            groundcheck::input::import::collect::archive_dir(&args.out).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
