"""Arize Phoenix, the real server (`phoenix serve`, loopback, its own temp database), fed
OTLP/HTTP with the requests a real agent exported (length-prefixed protobuf files, as
`groundcheck collect` and the Collector keep them). `running(files)` yields its base URL,
a client, and the number of spans it holds, and stops it after."""

import contextlib
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

import httpx


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def requests(files):
    data = b"".join(open(f, "rb").read() for f in files)
    at = 0
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        yield data[at + 4:at + 4 + n]
        at += 4 + n


@contextlib.contextmanager
def running(otlp_files):
    port, grpc = free_port(), free_port()
    work = tempfile.mkdtemp(prefix="phoenix-")
    env = {**os.environ, "PHOENIX_WORKING_DIR": work, "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(grpc), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_TELEMETRY_ENABLED": "false"}
    log = open(os.path.join(work, "phoenix.log"), "w")
    server = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "phoenix"), "serve"],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None:
                sys.exit(f"phoenix exited: see {log.name}")
            time.sleep(0.5)
        else:
            sys.exit(f"phoenix did not start: see {log.name}")
        sent = 0
        for body in requests(otlp_files):
            r = httpx.post(base + "/v1/traces", content=body,
                           headers={"content-type": "application/x-protobuf"}, timeout=30)
            r.raise_for_status()
            sent += 1

        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        expected = sum(len(ss.spans)
                       for body in requests(otlp_files)
                       for rs in ExportTraceServiceRequest.FromString(body).resource_spans
                       for ss in rs.scope_spans)

        from phoenix.client import Client

        client = Client(base_url=base)
        for _ in range(120):
            spans = client.spans.get_spans(project_identifier="default", limit=10000)
            if len(spans) >= expected:
                break
            time.sleep(0.5)
        else:
            sys.exit(f"phoenix holds {len(spans)} of {expected} spans")
        yield base, client, spans, sent
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
