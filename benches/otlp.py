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
Fails when the two give different step counts.

  python3 benches/otlp.py --import-spans 10000000 [--write]

Streaming import in bounded memory: a length-prefixed file of about N spans (the same
captured requests, each copy's ids, conversation ids and times patched in place, ten
minutes after the copy before) imported with the default --memory; reports wall, spans/s,
peak RSS and the file's size, and fails unless the steps are the copies times one copy's."""

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


def patched_copies(base, n, path):
    """Writes n copies of the serialized requests `base` to `path` (length-prefixed), each
    with its trace and span ids XORed by the copy number, the conversation ids' last 12
    characters set to it and every span and event time 10 minutes later than the copy
    before: bytes patched at fixed offsets, so a copy costs a memcpy, not a re-encode."""
    ids, times, convs = set(), set(), set()
    for r in base:
        for rs in r.resource_spans:
            for ss in rs.scope_spans:
                for s in ss.spans:
                    ids.update(x for x in (s.trace_id, s.span_id, s.parent_span_id) if x)
                    times.update((s.start_time_unix_nano, s.end_time_unix_nano))
                    times.update(e.time_unix_nano for e in s.events)
                    convs.update(a.value.string_value.encode() for a in s.attributes
                                 if a.key in ("gen_ai.conversation.id", "session.id"))
    times.discard(0)

    def offsets(b, needle):
        at, out = b.find(needle), []
        while at >= 0:
            out.append(at)
            at = b.find(needle, at + 1)
        return out

    plans = []
    for r in base:
        b = r.SerializeToString()
        plans.append((b, [(o, x) for x in ids for o in offsets(b, x)],
                      [(o, t) for t in times for o in offsets(b, struct.pack("<Q", t))],
                      [(o, c) for c in convs for o in offsets(b, c)]))
    spans = sum(len(ss.spans) for r in base for rs in r.resource_spans for ss in rs.scope_spans)
    with open(path, "wb", buffering=1 << 22) as f:
        for k in range(1, n + 1):
            key = (k * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)
            shift = k * 600_000_000_000
            tag = b"%012x" % k
            for b, id_at, time_at, conv_at in plans:
                m = bytearray(b)
                for o, x in id_at:
                    v = int.from_bytes(x, "big") ^ (key & ((1 << (8 * len(x))) - 1))
                    m[o:o + len(x)] = v.to_bytes(len(x), "big")
                for o, t in time_at:
                    m[o:o + 8] = struct.pack("<Q", t + shift)
                for o, c in conv_at:
                    m[o + len(c) - 12:o + len(c)] = tag
                f.write(struct.pack(">I", len(m)))
                f.write(m)
    return spans * n


def import_spans(target, write):
    src = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/import/captured/pydantic-ai-genai/*.pb")))
    base = [r for f in src for r in requests_of(f)]
    per_copy = sum(len(ss.spans) for r in base for rs in r.resource_spans for ss in rs.scope_spans)
    n = max(1, target // per_copy)
    tmp = tempfile.mkdtemp(prefix="otlp-stream-", dir=os.environ.get("BENCH_TMP"))
    one = os.path.join(tmp, "one.pb")
    patched_copies(base, 1, one)
    _, _, out = timed([BIN, "import", "otlp", one, "--out", os.path.join(tmp, "one")])
    steps_one = int(re.search(r"(\d+) step\(s\) in", out).group(1))
    big = os.path.join(tmp, "spans.pb")
    t = time.time()
    spans = patched_copies(base, n, big)
    made = time.time() - t
    size = os.path.getsize(big)
    os.remove(one)
    secs, rss, out = timed([BIN, "import", "otlp", big, "--out", os.path.join(tmp, "imp")])
    steps = int(re.search(r"(\d+) step\(s\) in", out).group(1))
    parts = re.search(r"written in (\d+) part", out)
    late = re.search(r"warning: (\d+) span", out)
    os.remove(big)
    if steps != steps_one * n or late:
        sys.exit(f"{steps} steps from {n} copies of {steps_one}; {late and late.group(0)}\n{out}")
    lines = [
        f"## {datetime.date.today()} — OTLP import of {spans:,} spans in bounded memory: {os.cpu_count()} cores",
        "",
        f"`python3 benches/otlp.py --import-spans {target}` (release build, default `--memory 512M`): the "
        f"captured pydantic-ai + fastmcp requests copied {n:,} times ({per_copy} spans a copy; ids, "
        f"conversation ids and times patched per copy; made in {made:.0f} s), one length-prefixed "
        f"file of {size / 2**30:.1f} GiB. {steps:,} steps = {n:,} copies x {steps_one}; "
        f"written in {parts.group(1) if parts else 1} part(s); no late span.",
        "",
        "| path | spans | file | wall | spans/s | peak RSS |",
        "|---|---|---|---|---|---|",
        f"| import otlp (streaming) | {spans:,} | {size / 2**30:.1f} GiB | {secs:.0f} s | {spans / secs:,.0f} | {rss:.0f} MiB |",
        "",
    ]
    print("\n".join(lines))
    if write:
        with open(os.path.join(ROOT, "benches/RESULTS.md"), "a") as f:
            f.write("\n" + "\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=2000)
    ap.add_argument("--import-spans", type=int, help="only the streaming import of a file of about this many spans")
    ap.add_argument("--write", action="store_true", help="append the table to benches/RESULTS.md")
    a = ap.parse_args()
    if a.import_spans:
        return import_spans(a.import_spans, a.write)
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
