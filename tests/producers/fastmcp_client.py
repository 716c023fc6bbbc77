"""fastmcp 4's client (2026-07-28 by default: `server/discover`, no `initialize`) over
stdio to the command after `--` (the gateway, or a server directly), or over streamable
HTTP when that command is one http:// URL. Lists the tools and
plays the calls given as JSON on argv[1] ([{"tool", "arguments"}], or {"sleep": SECS}); prints one JSON line
per call: {"tool", "is_error", "structured", "text"}, then {"server", "protocol", "tools"}.
GC_CLIENT_NAME names the client in its client info (two different client programs);
GC_AGENT_HEADER sends it as the gateway's Groundcheck-Agent header over HTTP."""

import asyncio
import json
import os
import sys

from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp import types

calls = json.loads(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]


async def main():
    name = os.environ.get("GC_CLIENT_NAME")
    info = types.Implementation(name=name, version="1.0") if name else None
    if len(cmd) == 1 and cmd[0].startswith("http"):
        agent = os.environ.get("GC_AGENT_HEADER")
        headers = {"Groundcheck-Agent": agent} if agent else None
        client = Client(StreamableHttpTransport(cmd[0], headers=headers), client_info=info)
    else:
        client = Client(StdioTransport(command=cmd[0], args=cmd[1:], env=dict(os.environ)),
                        client_info=info)
    async with client:
        tools = await client.list_tools()
        for c in calls:
            if "sleep" in c:
                await asyncio.sleep(c["sleep"])
                continue
            res = await client.call_tool(c["tool"], c["arguments"], raise_on_error=False)
            text = "\n".join(getattr(b, "text", "") for b in res.content)
            print(json.dumps({"tool": c["tool"], "is_error": bool(res.is_error),
                              "structured": res.structured_content, "text": text}), flush=True)
        init = client.initialize_result
        info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
        version = getattr(init, "protocol_version", None) or getattr(init, "protocolVersion", None)
        print(json.dumps({"server": getattr(info, "name", None), "protocol": version,
                          "tools": sorted(t.name for t in tools)}), flush=True)


asyncio.run(main())
