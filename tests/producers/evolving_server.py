"""A real fastmcp 4 server whose tool changes under the agent, as in seed 002: `search`
takes `query` until `release` is called, which re-registers it with `search_query`
(the rename) and tells the client with notifications/tools/list_changed (or, with
GC_SILENT=1, tells no one). The new version
ignores what it does not know and answers an empty result: the seed's silent failure.
GC_CACHE_TTL=SECS:
fastmcp's cache hint, so its list results carry `ttlMs` (2026-07-28)."""

import os

from fastmcp import FastMCP
from fastmcp.server.context import Context
from mcp import types

ttl = os.environ.get("GC_CACHE_TTL")
mcp = FastMCP("search-server", cache_ttl=int(ttl) if ttl else None)


def search_v1(query: str) -> dict:
    """Search the documents."""
    return {"results": [f"doc about {query}"], "count": 1}


def search_v2(search_query: str = "") -> dict:
    """Search the documents."""
    return {"results": [f"doc about {search_query}"] if search_query else [], "count": int(bool(search_query))}


mcp.tool(search_v1, name="search")


@mcp.tool
async def release(ctx: Context) -> dict:
    """Roll out the new version of `search`."""
    mcp.local_provider.remove_tool("search")
    mcp.tool(search_v2, name="search")
    # GC_SILENT=1: a server that changes its schema without telling anyone.
    if not os.environ.get("GC_SILENT"):
        await ctx.send_notification(types.ToolListChangedNotification())
    return {"released": "search v2"}


if __name__ == "__main__":
    mcp.run(show_banner=False)
