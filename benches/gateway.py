#!/usr/bin/env python3
"""What the gateway costs an agent, side by side in one run: the official MCP SDK's
ClientSession (tests/producers/burst_client.py) against a real fastmcp server
(tests/producers/burst_server.py, `work(n)` answering at once), four ways:

  direct stdio        client -> server over stdio
  gateway stdio       client -> groundcheck gateway -> server (stdio both sides)
  direct HTTP         client -> server serving streamable HTTP itself
  gateway HTTP        client -> groundcheck gateway --listen -> server over stdio

Two loads each: one session sending SEQ calls one after another (per-call latency p50 /
p99, and what the gateway adds to the direct path's), and SESSIONS sessions sending
BURST concurrent calls each (calls/s). Every call must be answered with its own n.

  python3 benches/gateway.py [--seq 300] [--sessions 4] [--burst 250] [--write]

Needs the producers venv (scripts/setup.sh) and the release binary (cargo build
--release). --write puts the table into benches/RESULTS.md."""

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("GROUNDCHECK_VENVS", os.path.expanduser("~/.cache/groundcheck/venvs"))
PY = os.path.join(VENV, "producers/bin/python")
BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/groundcheck/target")),
                   "release/groundcheck")
SERVER = [PY, os.path.join(ROOT, "tests/producers/burst_server.py")]
CLIENT = [PY, os.path.join(ROOT, "tests/producers/burst_client.py")]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing listens on {port}")


def burst(sessions, calls, cmd, sequential):
    args = CLIENT + [str(sessions), str(calls), "0"] + (["--sequential"] if sequential else []) + ["--"] + cmd
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    lines = [json.loads(l) for l in out]
    total = lines.pop()
    bad = [l for l in lines if not l["ok"] or l["answer"] != l["n"]]
    if bad or total["answered"] != total["calls"]:
        sys.exit(f"{cmd}: {len(bad)} wrong answers, {total}")
    return total


def measure(name, cmd_for, args, tmp):
    """cmd_for() -> (client command, cleanup)."""
    row = {"way": name}
    for load, sessions, calls, seq in (("seq", 1, args.seq, True), ("burst", args.sessions, args.burst, False)):
        cmd, stop = cmd_for(tmp, load)
        try:
            t = burst(sessions, calls, cmd, seq)
        finally:
            stop()
        if load == "seq":
            row["p50_ms"], row["p99_ms"] = t["p50_ms"], t["p99_ms"]
        else:
            row["calls_per_s"] = t["calls_per_s"]
    return row


def direct_stdio(tmp, load):
    return SERVER, lambda: None


def gateway_stdio(tmp, load):
    return [BIN, "gateway", "-q", "--out", os.path.join(tmp, f"gw-stdio-{load}"), "--"] + SERVER, lambda: None


def direct_http(tmp, load):
    port = free_port()
    p = subprocess.Popen(SERVER, env={**os.environ, "GC_HTTP_PORT": str(port)},
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return [f"http://127.0.0.1:{port}/mcp"], lambda: (p.terminate(), p.wait())


def gateway_http(tmp, load):
    p = subprocess.Popen([BIN, "gateway", "-q", "--listen", "127.0.0.1:0", "--out",
                          os.path.join(tmp, f"gw-http-{load}"), "--"] + SERVER,
                         stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    url = re.search(r"http://\S+", first).group(0)

    def stop():
        p.send_signal(2)
        p.wait()
    return [url], stop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", type=int, default=300)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--burst", type=int, default=250)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} is missing: cargo build --release")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(n, f, args, tmp) for n, f in (
            ("direct stdio", direct_stdio), ("gateway stdio", gateway_stdio),
            ("direct HTTP", direct_http), ("gateway HTTP (stdio upstream)", gateway_http))]
    base = {"stdio": rows[0], "HTTP": rows[2]}
    table = ["| way | p50 ms | p99 ms | added p50 / p99 ms | calls/s (burst) |", "|---|---|---|---|---|"]
    for r in rows:
        b = base["HTTP" if "HTTP" in r["way"] else "stdio"]
        added = "" if r is b else f"{r['p50_ms'] - b['p50_ms']:+.2f} / {r['p99_ms'] - b['p99_ms']:+.2f}"
        table.append(f"| {r['way']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {added} | {r['calls_per_s']:.0f} |")
    text = "\n".join(table)
    print(text)
    if args.write:
        path = os.path.join(ROOT, "benches/RESULTS.md")
        doc = open(path).read()
        head = "## Gateway: what it adds to an agent's calls (benches/gateway.py)"
        section = (f"{head}\n\nRelease binary, 2 cores; the official MCP SDK 2.x ClientSession against a fastmcp 4 "
                   f"server. Latency: 1 session, {args.seq} sequential calls; calls/s: {args.sessions} sessions x "
                   f"{args.burst} concurrent calls. The gateway HTTP row's baseline is the server serving HTTP "
                   f"itself.\n\n{text}\n")
        if head in doc:
            doc = re.sub(re.escape(head) + r".*?(?=\n## |\Z)", section.rstrip() + "\n", doc, flags=re.S)
        else:
            doc = doc.rstrip() + "\n\n" + section
        open(path, "w").write(doc)


main()
