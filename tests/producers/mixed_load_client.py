"""Many agents at once through the gateway's HTTP face, two protocol versions mixed:
AGENTS agents, even ones fastmcp 4's Client (2026-07-28: no session, each its own client
info `agent-I`), odd ones the MCP SDK's ClientSession (2025-11-25: a session each). Each
sends CALLS concurrent `work(n)` calls (n = I * 100000 + J). Agent 0 misbehaves: its calls
name the parameter `number`, which the schema does not have. Prints one JSON line per
call {"agent", "n", "ok", "answer" (n echoed) or "error", "ms"}, then one summary line
{"calls", "answered", "p50_ms", "p99_ms", "wall_s"}. With --sequential each agent sends its
calls one after another (the agents still run at once).
Usage: mixed_load_client.py AGENTS CALLS [--sequential] -- URL"""

import asyncio
import json
import sys
import time

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp import ClientSession, types

try:  # 2.x
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client

agents, calls = int(sys.argv[1]), int(sys.argv[2])
url = sys.argv[sys.argv.index("--") + 1]
sequential = "--sequential" in sys.argv[:sys.argv.index("--")]
lines = []


def record(agent, n, t, res=None, exc=None):
    line = {"agent": agent, "n": n, "ms": (time.perf_counter() - t) * 1000}
    if exc is not None:
        line.update(ok=False, answer=None, error=str(exc))
    else:
        sc = getattr(res, "structured_content", None) or getattr(res, "structuredContent", None)
        err = getattr(res, "is_error", None)
        if err is None:
            err = getattr(res, "isError", False)
        text = "\n".join(getattr(b, "text", "") for b in res.content)
        line.update(ok=not err, answer=(sc or {}).get("n"), error=text if err else None)
    lines.append(line)


def args(agent, n):
    return {"number": n} if agent == 0 else {"n": n, "ms": 2}


async def each(one):
    if sequential:
        for j in range(calls):
            await one(j)
    else:
        await asyncio.gather(*(one(j) for j in range(calls)))


async def modern(agent):
    info = types.Implementation(name=f"agent-{agent}", version="1.0")
    async with Client(StreamableHttpTransport(url), client_info=info) as c:
        async def one(j):
            n = agent * 100000 + j
            t = time.perf_counter()
            try:
                record(agent, n, t, await c.call_tool("work", args(agent, n), raise_on_error=False))
            except Exception as e:  # a JSON-RPC error is an answer too
                record(agent, n, t, exc=e)
        await each(one)


async def session(agent):
    async with http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.initialize()

            async def one(j):
                n = agent * 100000 + j
                t = time.perf_counter()
                try:
                    record(agent, n, t, await s.call_tool("work", args(agent, n)))
                except Exception as e:
                    record(agent, n, t, exc=e)
            await each(one)


async def main():
    await asyncio.gather(*((modern if a % 2 == 0 else session)(a) for a in range(agents)))


started = time.perf_counter()
asyncio.run(main())
wall = time.perf_counter() - started
for line in lines:
    print(json.dumps(line))
ms = sorted(l["ms"] for l in lines)
print(json.dumps({"calls": agents * calls, "answered": len(lines),
                  "p50_ms": ms[len(ms) // 2] if ms else None,
                  "p99_ms": ms[int(len(ms) * 0.99)] if ms else None,
                  "wall_s": wall}))
