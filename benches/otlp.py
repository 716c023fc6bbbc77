#!/usr/bin/env python3
"""Spans per second through `groundcheck import otlp` and `groundcheck collect`, on spans a
real agent emitted: the captured pydantic-ai + fastmcp requests
(tests/fixtures/import/captured/pydantic-ai-genai/*.pb) copied N times with fresh trace and
span ids, so every copy is its own set of conversations with the same span shapes.

  python3 benches/otlp.py --copies 2000 [--write]

Needs the release binary (cargo build --release) and the producers venv (scripts/setup.sh)
for its protobuf package. Reports wall time, spans/s and peak RSS (GNU time) for import of
one length-prefixed file, and for collect fed over OTLP/HTTP protobuf by 4 concurrent
clients (time from the first request to the end of the shutdown flush), each request
holding the spans of 64 single-span exports (as the SDK's BatchSpanProcessor batches).
Fails when the two give different step counts."""

import argparse
import concurrent.futures
import datetime
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("GROUNDCHECK_VENVS", os.path.expanduser("~/.cache/groundcheck/venvs"))
sys.path.insert(0, glob.glob(os.path.join(VENV, "producers/lib/python3*/site-packages"))[0])
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/groundcheck/target")),
                   "release/groundcheck")


def requests_of(path):
    data = open(path, "rb").read()
    at = 0
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        yield ExportTraceServiceRequest.FromString(data[at + 4:at + 4 + n])
        at += 4 + n


def rekey(b: bytes, k: int) -> bytes:
    if not b:
        return b
    v = int.from_bytes(b, "big") ^ (k * 0x9E3779B97F4A7C15 & ((1 << (8 * len(b))) - 1))
    return v.to_bytes(len(b), "big")


def copies(reqs, n):
    for k in range(1, n + 1):
        for r in reqs:
            c = ExportTraceServiceRequest()
            c.CopyFrom(r)
            for rs in c.resource_spans:
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        s.trace_id = rekey(s.trace_id, k)
                        s.span_id = rekey(s.span_id, k)
                        s.parent_span_id = rekey(s.parent_span_id, k)
                        for a in s.attributes:
                            if a.key in ("gen_ai.conversation.id", "session.id", "groundcheck.case_id"):
                                a.value.string_value += f"-{k}"
            yield c


def batched(reqs, size):
    """Requests of `size` exports' spans each, as the SDK's BatchSpanProcessor sends them."""
    batch = ExportTraceServiceRequest()
    n = 0
    for r in reqs:
        batch.resource_spans.extend(r.resource_spans)
        n += 1
        if n == size:
            yield batch
            batch, n = ExportTraceServiceRequest(), 0
    if n:
        yield batch


def timed(cmd):
    t = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed:\n{p.stdout}\n{p.stderr}")
    rss = int(p.stderr.strip().splitlines()[-1]) / 1024
    return time.time() - t, rss, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=2000)
    ap.add_argument("--write", action="store_true", help="append the table to benches/RESULTS.md")
    a = ap.parse_args()
    src = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/import/captured/pydantic-ai-genai/*.pb")))
    base = [r for f in src for r in requests_of(f)]
    tmp = tempfile.mkdtemp(prefix="otlp-bench-")
    big = os.path.join(tmp, "spans.pb")
    bodies = []
    spans = 0
    with open(big, "wb") as f:
        for r in batched(copies(base, a.copies), 64):
            b = r.SerializeToString()
            bodies.append(b)
            spans += sum(len(ss.spans) for rs in r.resource_spans for ss in rs.scope_spans)
            f.write(struct.pack(">I", len(b)) + b)
    secs, rss, out = timed([BIN, "import", "otlp", big, "--out", os.path.join(tmp, "imp")])
    steps_import = int(re.search(r"(\d+) step\(s\) in", out).group(1))
    rows = [("import otlp (one file)", spans, secs, rss)]

    # collect: 4 clients POST the same requests; time to the end of the shutdown flush.
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", BIN, "collect", "--listen", "127.0.0.1:0",
                          "--idle", "30", "--out", os.path.join(tmp, "col")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    url = re.search(r"(http://127\.0\.0\.1:\d+/v1/traces)", first).group(1)

    def post(chunk):
        for b in chunk:
            req = urllib.request.Request(url, data=b, headers={"Content-Type": "application/x-protobuf"})
            urllib.request.urlopen(req, timeout=60).read()

    t = time.time()
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        list(ex.map(post, [bodies[i::4] for i in range(4)]))
    # GNU time does not pass signals on: SIGINT goes to collect itself.
    subprocess.run(["pkill", "-INT", "-P", str(p.pid)], check=True)
    out, err = p.communicate(timeout=600)
    secs = time.time() - t
    rss = int(err.strip().splitlines()[-1]) / 1024
    steps_collect = int(re.search(r"(\d+) step\(s\) in", out).group(1))
    rows.append(("collect (OTLP/HTTP protobuf, 4 clients)", spans, secs, rss))
    if steps_collect != steps_import:
        sys.exit(f"collect wrote {steps_collect} steps, import {steps_import}")
    lines = [
        f"## {datetime.date.today()} — OTLP import and collect: {os.cpu_count()} cores",
        "",
        f"`python3 benches/otlp.py --copies {a.copies}` (release build): the captured pydantic-ai + "
        f"fastmcp spans copied {a.copies} times with fresh trace, span and conversation ids ({len(bodies)} requests, {spans} spans, "
        f"{steps_import} steps, the same from both).",
        "",
        "| path | spans | wall | spans/s | peak RSS |",
        "|---|---|---|---|---|",
    ] + [f"| {n} | {s} | {w:.1f} s | {s / w:,.0f} | {r:.0f} MiB |" for n, s, w, r in rows] + [""]
    print("\n".join(lines))
    if a.write:
        with open(os.path.join(ROOT, "benches/RESULTS.md"), "a") as f:
            f.write("\n" + "\n".join(lines))


main()
