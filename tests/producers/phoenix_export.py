"""Arize Phoenix, the real server (`phoenix serve`, loopback, its own temp database),
fed OTLP/HTTP with the requests a real agent exported (a length-prefixed protobuf file as
`groundcheck collect` and the Collector keep them), then read back the way Phoenix users
export spans:
  phoenix-get-spans.jsonl   the client's spans.get_spans(), one span per line
  phoenix-rest-page.json    GET /v1/projects/default/spans, the raw page
  phoenix-otlpv1.json       GET /v1/projects/default/spans/otlpv1, the raw page
  phoenix-dataframe.jsonl   spans.get_spans_dataframe() as pandas JSON lines
"""

import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

import httpx

p = argparse.ArgumentParser()
p.add_argument("--otlp", required=True, nargs="+", help="files of length-prefixed OTLP protobuf requests")
p.add_argument("--out", required=True)
args = p.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    data = b"".join(open(f, "rb").read() for f in args.otlp)
    at, sent = 0, 0
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        r = httpx.post(base + "/v1/traces", content=data[at + 4:at + 4 + n],
                       headers={"content-type": "application/x-protobuf"}, timeout=30)
        r.raise_for_status()
        at += 4 + n
        sent += 1

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    expected, at = 0, 0
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        req = ExportTraceServiceRequest.FromString(data[at + 4:at + 4 + n])
        expected += sum(len(ss.spans) for rs in req.resource_spans for ss in rs.scope_spans)
        at += 4 + n

    from phoenix.client import Client

    client = Client(base_url=base)
    for _ in range(120):
        spans = client.spans.get_spans(project_identifier="default", limit=10000)
        if len(spans) >= expected:
            break
        time.sleep(0.5)
    else:
        sys.exit(f"phoenix holds {len(spans)} of {expected} spans")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "phoenix-get-spans.jsonl"), "w") as f:
        for s in spans:
            f.write(json.dumps(s) + "\n")
    page = httpx.get(base + "/v1/projects/default/spans", params={"limit": 1000}, timeout=30)
    page.raise_for_status()
    open(os.path.join(args.out, "phoenix-rest-page.json"), "w").write(page.text)
    otlp = httpx.get(base + "/v1/projects/default/spans/otlpv1", params={"limit": 1000}, timeout=30)
    otlp.raise_for_status()
    open(os.path.join(args.out, "phoenix-otlpv1.json"), "w").write(otlp.text)
    df = client.spans.get_spans_dataframe(project_identifier="default", limit=10000)
    df.to_json(os.path.join(args.out, "phoenix-dataframe.jsonl"), orient="records", lines=True)
    print(json.dumps({"requests": sent, "spans": expected}))
finally:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
