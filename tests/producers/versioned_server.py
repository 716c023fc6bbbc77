"""A real fastmcp 4 server whose tool declares its version the way fastmcp does
(`version=`, listed as `_meta.fastmcp.version`): `search` at GC_TOOL_VERSION (3.0.0)."""

import os

from fastmcp import FastMCP

mcp = FastMCP("search-server")


def search(query: str) -> dict:
    """Search the documents."""
    return {"results": [f"doc about {query}"], "count": 1}


mcp.tool(search, version=os.environ.get("GC_TOOL_VERSION", "3.0.0"))

if __name__ == "__main__":
    mcp.run(show_banner=False)
