//! `groundcheck collect`: an OTLP receiver agents export to directly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::print::outln;
use clap::Args as ClapArgs;
use groundcheck::input::import::collect::{CollectOptions, archive_dir};
use groundcheck::input::import::receiver::{self, Bound, Listen};

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
    #[arg(long, default_value = "5", value_name = "SECS", value_parser = super::common::parse_duration)]
    idle: Duration,

    /// Spans held at most (512M, 2G; a bare number is MiB): past it, the traces that went
    /// longest without a span are written before --idle is up (counted at the end).
    #[arg(long, value_name = "SIZE", default_value = "512M", value_parser = super::import::size)]
    memory: usize,

    /// The archive of received requests rotates to a new file past this many MiB.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    rotate_mib: u64,

    /// Largest request body accepted, in MiB, as sent and once inflated from gzip (larger:
    /// HTTP 413, gRPC RESOURCE_EXHAUSTED).
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    max_body_mib: usize,

    /// Stop by itself after this many seconds (default: run until SIGINT or SIGTERM).
    #[arg(long, value_name = "SECS", value_parser = super::common::parse_duration)]
    duration: Option<Duration>,

    /// OTLP/HTTP: a client's request headers must be in within SECS, and each piece of
    /// its body within SECS of the one before (else 408); the connection then closes.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = super::common::parse_timeout)]
    read_timeout: Duration,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let import = args.tie.options(&args.run_id).await?;
    let opts = CollectOptions {
        out: args.out.clone(),
        import,
        idle: args.idle,
        rotate_bytes: args.rotate_mib.max(1) * 1024 * 1024,
        memory: args.memory,
    };
    let listen = Listen {
        http: args.listen,
        grpc: args.grpc,
        max_bytes: args.max_body_mib.max(1) * 1024 * 1024,
        duration: args.duration,
        read: args.read_timeout,
    };
    let mut http = args.listen;
    let st = receiver::serve(opts, listen, |b: Bound| {
        http = b.http;
        if let Some(ga) = b.grpc {
            outln!("collect: OTLP/gRPC on {ga}");
        }
        outln!(
            "collect: OTLP/HTTP on http://{}/v1/traces; point agents at it with \
             OTEL_EXPORTER_OTLP_ENDPOINT=http://{}",
            b.http,
            b.http
        );
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    })
    .await?;
    let archive = archive_dir(&args.out);
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
        archive.display()
    );
    if st.traces_cut > 0 {
        outln!(
            "collect: {} trace(s) written before --idle was up, to stay within --memory",
            st.traces_cut
        );
    }
    if st.late_spans > 0 {
        outln!(
            "collect: {} span(s) came after their trace was written (raise --idle or --memory); they are in the archive",
            st.late_spans
        );
    }
    if st.bad_requests > 0 {
        outln!(
            "collect: {} request(s) refused; their bodies are in {}",
            st.bad_requests,
            archive.join("rejects").display()
        );
    }
    receiver::usable(&st, http, &args.out)?;
    Ok(ExitCode::SUCCESS)
}
