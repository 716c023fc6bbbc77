"""The official MCP Python SDK's own client (stdio) calling the SDK's own FastMCP server,
traced by OpenLLMetry's MCP instrumentation (`opentelemetry-instrumentation-mcp`, which
loads only with the 1.x SDK: this script runs in its own venv). An agent loop without a
model: each conversation's calls are played in order, as scripted in scenarios.py; the
instrumentation, client, server and protocol are the real libraries.

Prints one JSON line per conversation: {"conversation", "trace_id"}."""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="openllmetry")
p.add_argument("--serve", metavar="NAME", help="run as the MCP server NAME (stdio)")
args = p.parse_args()

from opentelemetry.instrumentation.mcp import McpInstrumentor  # noqa: E402

if args.serve:
    spans_file = os.environ.get("GC_SPANS_FILE_SERVER")
    provider = otel_setup.setup(
        args.serve, args.seed + "-" + args.serve, f"{spans_file}-{args.serve}" if spans_file else None
    )
    McpInstrumentor().instrument(tracer_provider=provider)
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP(args.serve)
    # The same tools as warehouse_server.py, on the 1.x SDK's own FastMCP.
    sys.argv = [sys.argv[0]]
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tools", os.path.join(os.path.dirname(__file__), "warehouse_tools.py")
    )
    tools = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tools)
    from mcp.types import CallToolResult, TextContent

    def result(text, body, meta):
        return CallToolResult(content=[TextContent(type="text", text=text)], structuredContent=body,
                              _meta=meta)

    for f in tools.TOOLS:
        mcp.tool()(tools.with_meta(f, result))

    try:
        mcp.run()
    finally:
        provider.shutdown()
    sys.exit(0)

provider = otel_setup.setup("mcp-sdk-agent", args.seed, args.spans_file)
McpInstrumentor().instrument(tracer_provider=provider)

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from opentelemetry import trace  # noqa: E402


async def main():
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        params = StdioServerParameters(
            command=sys.executable,
            args=[__file__, "--serve", conv["server"], "--seed", f"{args.seed}-{conv['name']}"],
            env=dict(os.environ),
        )
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            async with stdio_client(params) as (r, w):
                async with ClientSession(r, w) as session:
                    await session.initialize()
                    for turn in conv["turns"]:
                        for c in turn.get("calls", []):
                            await session.call_tool(c["tool"], c["arguments"])
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
