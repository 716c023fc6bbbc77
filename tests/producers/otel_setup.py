"""OpenTelemetry SDK set-up shared by the producer scripts: the real SDK and the real
OTLP/HTTP exporter (protobuf), plus a file copy of every export in the two encodings
the Collector's file exporter writes (OTLP JSON lines, length-prefixed protobuf).

OTEL_EXPORTER_OTLP_PROTOCOL=grpc picks the gRPC exporter. Ids are deterministic (GC_ID_SEED) so a case can name its source trace; nothing else
is scripted here."""

import json
import os
import random
import struct
import threading

from google.protobuf import json_format
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common._internal.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator


class SeededIds(IdGenerator):
    def __init__(self, seed: str):
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def generate_span_id(self) -> int:
        with self.lock:
            return self.rng.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        with self.lock:
            return self.rng.getrandbits(128) or 1


class FileExporter(SpanExporter):
    """Writes each export as the Collector's file exporter does: `PATH.jsonl` (one OTLP
    JSON ExportTraceServiceRequest per line, hex ids) and `PATH.pb` (each request as a
    4-byte big-endian length and the protobuf bytes)."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()

    def export(self, spans):
        req = encode_spans(spans)
        doc = json_format.MessageToDict(req)
        for rs in doc.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    for k in ("traceId", "spanId", "parentSpanId"):
                        if k in s:
                            s[k] = _b64_to_hex(s[k])
                    for link in s.get("links", []):
                        for k in ("traceId", "spanId"):
                            if k in link:
                                link[k] = _b64_to_hex(link[k])
        data = req.SerializeToString()
        with self.lock:
            with open(self.path + ".jsonl", "a") as f:
                f.write(json.dumps(doc, separators=(",", ":")) + "\n")
            with open(self.path + ".pb", "ab") as f:
                f.write(struct.pack(">I", len(data)) + data)
        return SpanExportResult.SUCCESS

    def shutdown(self):
        pass


def _b64_to_hex(s: str) -> str:
    import base64

    return base64.b64decode(s).hex()


def file_processor(file_prefix: str) -> SimpleSpanProcessor:
    """The processor that writes every span to FILE.jsonl / FILE.pb."""
    return SimpleSpanProcessor(FileExporter(file_prefix))


def setup(service: str, seed: str, file_prefix: str | None = None, first=()) -> TracerProvider:
    """`first`: span processors that must see a span before it is exported (processors
    run in the order added; OpenInference's rewrites attributes in on_end)."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": service}), id_generator=SeededIds(seed)
    )
    for p in first:
        provider.add_span_processor(p)
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        # The SDK's own choice of exporter by OTEL_EXPORTER_OTLP_PROTOCOL.
        if os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
    if file_prefix:
        provider.add_span_processor(file_processor(file_prefix))
    trace.set_tracer_provider(provider)
    return provider
