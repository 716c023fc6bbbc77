"""An OTLP/HTTP logs receiver on loopback, decoding with the OpenTelemetry Python proto
package: every ExportLogsServiceRequest posted to /v1/logs (protobuf) is decoded and each
log record appended to OUT as one JSON line {event_name, trace_id, span_id, severity,
attributes, service}. `--fail-first N` answers the first N requests 503 (a retry test).
Prints "listening PORT" and serves until killed.
Usage: otlp_logs_receiver.py OUT [--fail-first N]"""

import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest, ExportLogsServiceResponse)

out = sys.argv[1]
fail_first = int(sys.argv[sys.argv.index("--fail-first") + 1]) if "--fail-first" in sys.argv else 0
seen = {"requests": 0}


def value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        seen["requests"] += 1
        if seen["requests"] <= fail_first:
            self.send_response(503)
            self.end_headers()
            return
        if self.path != "/v1/logs" or self.headers.get("content-type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        req = ExportLogsServiceRequest.FromString(body)
        with open(out, "a") as f:
            for rl in req.resource_logs:
                service = {kv.key: value(kv.value) for kv in rl.resource.attributes}.get("service.name")
                for sl in rl.scope_logs:
                    for r in sl.log_records:
                        f.write(json.dumps({
                            "event_name": r.event_name, "trace_id": r.trace_id.hex(),
                            "span_id": r.span_id.hex(), "severity": r.severity_number,
                            "attributes": {kv.key: value(kv.value) for kv in r.attributes},
                            "service": service}) + "\n")
        data = ExportLogsServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = HTTPServer(("127.0.0.1", 0), Handler)
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
