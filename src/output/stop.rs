//! How the long-running servers (`collect`, the gateway's HTTP face) hold out against
//! their clients and stop: one HTTP serve loop with read deadlines (a slow or stalled
//! client cannot hold a connection); after the first SIGINT/SIGTERM they stop taking work
//! and finish what they hold, but a client that stops in the middle of a request cannot
//! keep them alive (each waits a bounded grace), and a second signal ends the process at
//! once.

use std::future::Future;
use std::time::Duration;

/// How long a server waits for its open connections once told to stop.
pub const GRACE: Duration = Duration::from_secs(5);

/// `f` to its end, or None after `grace`: a graceful shutdown that cannot hang.
pub async fn within<F: Future>(grace: Duration, f: F) -> Option<F::Output> {
    tokio::time::timeout(grace, f).await.ok()
}

/// From now on, the next SIGINT or SIGTERM ends the process at once (exit 130 or 143),
/// saying so: for after the first signal, while a server finishes what it holds.
pub fn second_signal_exits(what: &'static str) {
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        let code = tokio::select! {
            _ = int.recv() => 130,
            _ = term.recv() => 143,
        };
        eprintln!("{what}: a second signal; stopping at once, without finishing");
        std::process::exit(code);
    });
}

/// Serves `app` over HTTP/1.1 on `listener` until `stop` resolves, then lets the open
/// connections finish their requests within [`GRACE`]; returns how many were still open
/// and cut. Unlike `axum::serve` (which sets no timer), a client cannot hold a connection
/// by sending slowly: its request headers must be in within `read` (else the connection
/// closes), and each piece of a request body must come within `read` of the one before
/// (else 408 and the connection closes). Requests carry the peer's address as axum's
/// `ConnectInfo<SocketAddr>`.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    read: Duration,
    stop: impl Future<Output = ()>,
) -> usize {
    let app = app.layer(axum::middleware::from_fn_with_state(read, body_within));
    let (close_tx, close_rx) = tokio::sync::watch::channel(());
    let mut conns = tokio::task::JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        let (tcp, peer) = tokio::select! {
            _ = &mut stop => break,
            a = listener.accept() => match a {
                Ok(a) => a,
                // Out of descriptors and the like: the listener still works; try again
                // once some connection has ended.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let app = app.clone();
        let svc =
            hyper::service::service_fn(move |req: axum::http::Request<hyper::body::Incoming>| {
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                let mut app = app.clone();
                async move { tower_service::Service::call(&mut app, req).await }
            });
        let mut closing = close_rx.clone();
        conns.spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(read)
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), svc);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = closing.changed() => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
        while conns.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = close_tx.send(());
    let _ = within(GRACE, async { while conns.join_next().await.is_some() {} }).await;
    let cut = conns.len();
    conns.abort_all();
    cut
}

/// Gives the request's body an idle deadline: a piece that does not come within `read`
/// of the one before ends the body with an error, and the request is answered 408.
async fn body_within(
    axum::extract::State(read): axum::extract::State<Duration>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let late = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let req = req.map(|body| {
        axum::body::Body::new(Deadline {
            body,
            read,
            sleep: Box::pin(tokio::time::sleep(read)),
            late: std::sync::Arc::clone(&late),
        })
    });
    let res = next.run(req).await;
    if late.load(std::sync::atomic::Ordering::Relaxed) {
        return (
            axum::http::StatusCode::REQUEST_TIMEOUT,
            [(axum::http::header::CONNECTION, "close")],
            format!(
                "the request body stopped for {} s before its end\n",
                read.as_secs_f64()
            ),
        )
            .into_response();
    }
    res
}

/// A request body that fails once no piece of it came for `read`.
struct Deadline {
    body: axum::body::Body,
    read: Duration,
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
    late: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl http_body::Body for Deadline {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        use std::task::Poll;
        let this = &mut *self;
        match std::pin::Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(f) => {
                let next = tokio::time::Instant::now() + this.read;
                this.sleep.as_mut().reset(next);
                Poll::Ready(f)
            }
            Poll::Pending => match this.sleep.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.late.store(true, std::sync::atomic::Ordering::Relaxed);
                    Poll::Ready(Some(Err(axum::Error::new(format!(
                        "no byte of the request body for {} s",
                        this.read.as_secs_f64()
                    )))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
