"""The official MCP Python SDK's client (the installed version: 2.x speaks 2026-07-28 by
default, 1.x 2025-11-25) over stdio to the command after `--` (the gateway, or a server
directly). It lists the tools and plays the calls given as JSON on argv[1]
([{"tool", "arguments"}]); prints one JSON line per call with what the client got:
{"tool", "is_error", "structured", "text"}, then {"server": name, "protocol": version}."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

calls = json.loads(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]


async def main():
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    async with stdio_client(params) as (r, w):
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
