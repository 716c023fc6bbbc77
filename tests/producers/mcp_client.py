"""The official MCP Python SDK's client (the installed version: 2.x speaks 2026-07-28 by
default, 1.x 2025-11-25) over stdio to the command after `--` (the gateway, or a server
directly), or over streamable HTTP when that command is one http:// URL. It lists the tools and plays the calls given as JSON on argv[1]
([{"tool", "arguments"}]); prints one JSON line per call with what the client got:
{"tool", "is_error", "structured", "text"}, then {"server": name, "protocol": version}."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # 2.x
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client

# GC_PROTOCOL_VERSION: the version the client proposes in initialize (the SDK speaks
# every version since 2024-11-05; it proposes its latest unless told).
if os.environ.get("GC_PROTOCOL_VERSION"):
    import mcp.types
    mcp.types.LATEST_PROTOCOL_VERSION = os.environ["GC_PROTOCOL_VERSION"]

calls = json.loads(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]


async def main():
    if len(cmd) == 1 and cmd[0].startswith("http"):
        transport = http_client(cmd[0])
    else:
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
        transport = stdio_client(params)
    async with transport as streams:
        r, w = streams[0], streams[1]
        async with ClientSession(r, w) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            names = sorted(t.name for t in tools.tools)
            for c in calls:
                res = await session.call_tool(c["tool"], c["arguments"])
                text = "\n".join(getattr(b, "text", "") for b in res.content)
                # Field names differ between the 1.x and 2.x SDKs.
                is_error = getattr(res, "is_error", None)
                if is_error is None:
                    is_error = getattr(res, "isError", False)
                structured = getattr(res, "structured_content", None)
                if structured is None:
                    structured = getattr(res, "structuredContent", None)
                print(json.dumps({"tool": c["tool"], "is_error": bool(is_error),
                                  "structured": structured, "text": text}), flush=True)
            info = getattr(init, "serverInfo", None) or getattr(init, "server_info", None)
            version = getattr(init, "protocolVersion", None) or getattr(init, "protocol_version", None)
            print(json.dumps({"server": getattr(info, "name", None), "protocol": version, "tools": names}), flush=True)


asyncio.run(main())
