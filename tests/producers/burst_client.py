"""The official MCP SDK's ClientSession under load: SESSIONS sessions at once, each
sending CALLS concurrent `work(n)` calls (n = session * 100000 + i), over streamable HTTP
(when the command after `--` is one http:// URL) or stdio. Prints one JSON line per
call: {"session", "n", "ok", "answer" (n echoed) or "error", "ms"}, then one line
{"calls", "answered", "seconds", "calls_per_s", "p50_ms", "p99_ms"}.
Usage: burst_client.py SESSIONS CALLS MS [--sequential] -- CMD... (--sequential: each
session sends its calls one after another, for per-call latency)."""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # 2.x
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client

sessions, calls, ms = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
cmd = sys.argv[sys.argv.index("--") + 1:]
sequential = "--sequential" in sys.argv[:sys.argv.index("--")]
lines = []


def transport():
    if len(cmd) == 1 and cmd[0].startswith("http"):
        return http_client(cmd[0])
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    return stdio_client(params)


async def one(session, s, i):
    n = s * 100000 + i
    t = time.perf_counter()
    try:
        res = await session.call_tool("work", {"n": n, "ms": ms})
        sc = getattr(res, "structured_content", None) or getattr(res, "structuredContent", None)
        err = getattr(res, "is_error", None)
        if err is None:
            err = getattr(res, "isError", False)
        text = "\n".join(getattr(b, "text", "") for b in res.content)
        line = {"session": s, "n": n, "ok": not err,
                "answer": (sc or {}).get("n"), "error": text if err else None}
    except Exception as e:  # a JSON-RPC error is an answer too
        line = {"session": s, "n": n, "ok": False, "answer": None, "error": str(e)}
    line["ms"] = (time.perf_counter() - t) * 1000
    lines.append(line)


async def run_session(s, start):
    async with transport() as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            await session.list_tools()
            await start.wait()
            if sequential:
                for i in range(calls):
                    await one(session, s, i)
            else:
                await asyncio.gather(*(one(session, s, i) for i in range(calls)))


async def main():
    start = asyncio.Event()
    tasks = [asyncio.create_task(run_session(s, start)) for s in range(sessions)]
    await asyncio.sleep(0)
    # Every session connected and listed before the burst starts.
    while not all(t.done() for t in tasks) and len(lines) == 0 and not start.is_set():
        await asyncio.sleep(0.5)
        start.set()
    t = time.perf_counter()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    seconds = time.perf_counter() - t
    for l in sorted(lines, key=lambda l: (l["session"], l["n"])):
        print(json.dumps(l))
    ok = sorted(l["ms"] for l in lines if l["ok"])
    pct = lambda p: ok[min(len(ok) - 1, int(p * len(ok)))] if ok else None
    print(json.dumps({"calls": sessions * calls, "answered": len(lines), "seconds": seconds,
                      "calls_per_s": len(ok) / seconds if seconds else None,
                      "p50_ms": pct(0.5), "p99_ms": pct(0.99),
                      "session_errors": [repr(r) for r in results if isinstance(r, BaseException)]}))


asyncio.run(main())
