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

Then the mixed load, over HTTP only (tests/producers/mixed_load_client.py): AGENTS agents
at once, 2026-07-28 (fastmcp's Client) and 2025-11-25 (the SDK's ClientSession) mixed,
CALLS calls each (one after another per agent, then all at once), agent 0 misbehaving
(a parameter the schema does not have). Latency p50 / p99 of the well-behaved agents'
calls, each of which must come back with its own n, against the server serving HTTP
itself, the gateway's face with the server over stdio behind it, and the face with that
same HTTP server as its upstream.

  python3 benches/gateway.py [--seq 300] [--sessions 4] [--burst 250]
                             [--agents 10] [--calls 100] [--write]

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
MIXED = [PY, os.path.join(ROOT, "tests/producers/mixed_load_client.py")]


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


def mixed(name, cmd_for, args, tmp, sequential):
    """The mixed load through one way: p50 / p99 of agents 1.. (agent 0 misbehaves), and
    the calls of all agents per second of the load's wall time."""
    cmd, stop = cmd_for(tmp, f"mixed-{sequential}")
    try:
        out = subprocess.run(MIXED + [str(args.agents), str(args.calls)]
                             + (["--sequential"] if sequential else []) + ["--"] + cmd,
                             capture_output=True, text=True, timeout=600)
    finally:
        stop()
    if out.returncode != 0:
        sys.exit(f"{name}: mixed_load_client.py failed: {out.stderr[-2000:]}")
    lines = [json.loads(l) for l in out.stdout.splitlines()]
    total = lines.pop()
    good = [l for l in lines if l["agent"] != 0]
    bad = [l for l in good if not l["ok"] or l["answer"] != l["n"]]
    if bad or total["answered"] != total["calls"]:
        sys.exit(f"{name}: {len(bad)} wrong answers, {total}")
    ms = sorted(l["ms"] for l in good)
    return {"way": name, "p50_ms": ms[len(ms) // 2], "p99_ms": ms[int(len(ms) * 0.99)],
            "calls": len(good), "misbehaving": len(lines) - len(good), "in_flight": args.agents if sequential else args.agents * args.calls,
            "calls_per_s": total["calls"] / total["wall_s"]}


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


def gateway_http_upstream(tmp, load):
    """The face in front of the server serving HTTP itself (`--upstream`)."""
    port = free_port()
    server = subprocess.Popen(SERVER, env={**os.environ, "GC_HTTP_PORT": str(port)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    p = subprocess.Popen([BIN, "gateway", "-q", "--listen", "127.0.0.1:0", "--out",
                          os.path.join(tmp, f"gw-up-{load}"), "--upstream",
                          f"http://127.0.0.1:{port}/mcp"], stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    url = re.search(r"http://\S+", first).group(0)

    def stop():
        p.send_signal(2)
        p.wait()
        server.terminate()
        server.wait()
    return [url], stop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", type=int, default=300)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--burst", type=int, default=250)
    ap.add_argument("--agents", type=int, default=10)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} is missing: cargo build --release")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(n, f, args, tmp) for n, f in (
            ("direct stdio", direct_stdio), ("gateway stdio", gateway_stdio),
            ("direct HTTP", direct_http), ("gateway HTTP (stdio upstream)", gateway_http))]
        # Each agent's calls one after another (at most one call per agent in flight), then
        # every call of every agent at once (the latency is then mostly queueing on 2 cores).
        mixed_rows = [[mixed(n, f, args, tmp, seq) for n, f in (
            ("direct HTTP", direct_http), ("gateway HTTP (stdio upstream)", gateway_http),
            ("gateway HTTP (HTTP upstream)", gateway_http_upstream))]
            for seq in (True, False)]
    base = {"stdio": rows[0], "HTTP": rows[2]}
    table = ["| way | p50 ms | p99 ms | added p50 / p99 ms | calls/s (burst) |", "|---|---|---|---|---|"]
    for r in rows:
        b = base["HTTP" if "HTTP" in r["way"] else "stdio"]
        added = "" if r is b else f"{r['p50_ms'] - b['p50_ms']:+.2f} / {r['p99_ms'] - b['p99_ms']:+.2f}"
        table.append(f"| {r['way']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {added} | {r['calls_per_s']:.0f} |")
    mixed_table = ["| calls in flight | way | p50 ms | p99 ms | added p50 / p99 ms | calls/s | calls checked |",
                   "|---|---|---|---|---|---|---|"]
    for load in mixed_rows:
        mb = load[0]
        for r in load:
            added = "" if r is mb else f"{r['p50_ms'] - mb['p50_ms']:+.2f} / {r['p99_ms'] - mb['p99_ms']:+.2f}"
            mixed_table.append(f"| {r['in_flight']} | {r['way']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {added} "
                               f"| {r['calls_per_s']:.0f} | {r['calls']} |")
    text = "\n".join(table)
    mixed_text = "\n".join(mixed_table)
    print(text)
    print()
    print(mixed_text)
    if args.write:
        path = os.path.join(ROOT, "benches/RESULTS.md")
        doc = open(path).read()
        head = "## Gateway: what it adds to an agent's calls (benches/gateway.py)"
        section = (f"{head}\n\nRelease binary, 2 cores; the official MCP SDK 2.x ClientSession against a fastmcp 4 "
                   f"server. Latency: 1 session, {args.seq} sequential calls; calls/s: {args.sessions} sessions x "
                   f"{args.burst} concurrent calls. The gateway HTTP row's baseline is the server serving HTTP "
                   f"itself.\n\n{text}\n\nMixed load: {args.agents} agents at once through HTTP, "
                   f"2026-07-28 (fastmcp's Client) and 2025-11-25 (the SDK's ClientSession) alternating, "
                   f"{args.calls} calls each (first one after another per agent, so {args.agents} in "
                   f"flight; then all at once), agent 0 misbehaving (a parameter the schema does not "
                   f"have); latency of the other agents' calls, each answered with its own n; calls/s "
                   f"over all agents' calls and the load's wall time. The agents are one Python process "
                   f"(asyncio), so with every call in flight at once the latency is mostly waiting in "
                   f"queues on 2 cores shared by the agents, the server and the gateway: there the added "
                   f"latency is the gateway's share of the CPU.\n\n"
                   f"{mixed_text}\n")
        if head in doc:
            doc = re.sub(re.escape(head) + r".*?(?=\n## |\Z)", section.rstrip() + "\n", doc, flags=re.S)
        else:
            doc = doc.rstrip() + "\n\n" + section
        open(path, "w").write(doc)


main()
