"""A real fastmcp 4 server for load and resumption: `work(n, ms)` sleeps ms and answers
{"n": n}; `slow(seconds)` reports progress every 0.2 s, then answers {"slept": seconds};
`getenv(name)` answers {"value": the variable in this process or null} (what a server
behind the gateway can see).
GC_DIE_AFTER=K: the process exits (status 3) when the K-th `work` call arrives, with
calls still in flight: the server that dies mid-burst. GC_HTTP_PORT=P: serve streamable
HTTP on 127.0.0.1:P/mcp instead of stdio (for benches/gateway.py's direct baseline)."""

import asyncio
import os

from fastmcp import FastMCP
from fastmcp.server.context import Context

mcp = FastMCP("burst-server")
die_after = int(os.environ.get("GC_DIE_AFTER", "0"))
seen = 0


@mcp.tool
async def work(n: int, ms: int = 0) -> dict:
    """Answer n after ms milliseconds."""
    global seen
    seen += 1
    if die_after and seen >= die_after:
        os._exit(3)
    if ms:
        await asyncio.sleep(ms / 1000)
    return {"n": n}


@mcp.tool
def getenv(name: str) -> dict:
    """The value of an environment variable in this server's process, or null."""
    return {"value": os.environ.get(name)}


@mcp.tool
async def slow(seconds: float, ctx: Context) -> dict:
    """Sleep, reporting progress."""
    steps = max(1, int(seconds / 0.2))
    for i in range(steps):
        await ctx.report_progress(i, steps)
        await asyncio.sleep(seconds / steps)
    return {"slept": seconds}


if __name__ == "__main__":
    port = os.environ.get("GC_HTTP_PORT")
    if port:
        mcp.run(transport="http", host="127.0.0.1", port=int(port), show_banner=False)
    else:
        mcp.run(show_banner=False)
