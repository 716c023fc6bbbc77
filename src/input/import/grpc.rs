//! `collect`'s OTLP/gRPC face: the TraceService's Export method, decoded by a codec that
//! checks a request's nesting (`otlp::check_depth`) before prost reads it. The generated
//! server decodes with prost directly, and prost has no depth limit in this process (the
//! `no-recursion-limit` feature Ballista needs), so one crafted request would overflow
//! the stack and take every trace `collect` holds with it.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Buf;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use tonic::codec::{Codec, CompressionEncoding, DecodeBuf, Decoder};
use tonic::codegen::{Body as HttpBody, BoxFuture, Service, http};
use tonic::server::{NamedService, UnaryService};
use tonic::{Status, body::Body};

use super::collect::Collector;

/// The Export method's path.
const EXPORT: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

/// The gRPC TraceService over `collector`; requests larger than `max_bytes` (after gzip)
/// get RESOURCE_EXHAUSTED, deeper than `otlp::MAX_DEPTH` INVALID_ARGUMENT.
#[derive(Clone)]
pub struct TraceService {
    collector: Arc<Collector>,
    max_bytes: usize,
}

impl TraceService {
    pub fn new(collector: Arc<Collector>, max_bytes: usize) -> Self {
        TraceService {
            collector,
            max_bytes,
        }
    }
}

impl NamedService for TraceService {
    const NAME: &'static str = "opentelemetry.proto.collector.trace.v1.TraceService";
}

/// The codec of the Export method; a request that is not OTLP is refused and, as over
/// HTTP, kept in the rejects folder and counted.
#[derive(Clone)]
struct Checked(Arc<Collector>);

struct CheckedDecoder(Arc<Collector>);

impl Decoder for CheckedDecoder {
    type Item = ExportTraceServiceRequest;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Self::Item>, Status> {
        let bytes = buf.copy_to_bytes(buf.remaining());
        match super::otlp::decode_request(&bytes) {
            Ok(r) => Ok(Some(r)),
            Err(e) => {
                let why = format!("not an OTLP trace export: {e}");
                let kept = self.0.reject(&bytes, &why);
                eprintln!(
                    "collect: refused a gRPC request ({why}){}",
                    kept.map(|p| format!("; its body is kept in {}", p.display()))
                        .unwrap_or_default()
                );
                Err(Status::invalid_argument(why))
            }
        }
    }
}

impl Codec for Checked {
    type Encode = ExportTraceServiceResponse;
    type Decode = ExportTraceServiceRequest;
    type Encoder = tonic_prost::ProstEncoder<ExportTraceServiceResponse>;
    type Decoder = CheckedDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        tonic_prost::ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        CheckedDecoder(self.0.clone())
    }
}

struct Export(Arc<Collector>);

impl UnaryService<ExportTraceServiceRequest> for Export {
    type Response = ExportTraceServiceResponse;
    type Future = BoxFuture<tonic::Response<ExportTraceServiceResponse>, Status>;

    fn call(&mut self, request: tonic::Request<ExportTraceServiceRequest>) -> Self::Future {
        let collector = self.0.clone();
        Box::pin(async move {
            collector
                .accept(request.into_inner(), None)
                .map_err(|e| Status::unavailable(e.to_string()))?;
            Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
        })
    }
}

impl<B> Service<http::Request<B>> for TraceService
where
    B: HttpBody + Send + 'static,
    B::Error: Into<tonic::codegen::StdError> + Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            if req.uri().path() != EXPORT {
                return Ok(
                    Status::unimplemented(format!("no method {}", req.uri().path())).into_http(),
                );
            }
            let mut gzip = tonic::codec::EnabledCompressionEncodings::default();
            gzip.enable(CompressionEncoding::Gzip);
            let mut grpc = tonic::server::Grpc::new(Checked(this.collector.clone()))
                .apply_compression_config(gzip, Default::default())
                .apply_max_message_size_config(Some(this.max_bytes), None);
            let mut resp = grpc.unary(Export(this.collector), req).await;
            // tonic says OUT_OF_RANGE for a message over the size cap, a code OTLP
            // exporters retry (the same request, forever); RESOURCE_EXHAUSTED without
            // RetryInfo is the one they give up on.
            let h = resp.headers_mut();
            if h.get("grpc-status").is_some_and(|v| v == "11") {
                h.insert("grpc-status", http::HeaderValue::from_static("8"));
            }
            Ok(resp)
        })
    }
}
