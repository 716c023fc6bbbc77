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
    AS_OF = "2026-11-30T06:00:00Z"

    @mcp.tool()
    def describe_table(table: str) -> dict:
        """Columns of a warehouse table."""
        return {"table": table, "columns": ["customer_id", "is_active", "region_code"], "as_of": AS_OF}

    @mcp.tool()
    def run_sql(query: str) -> dict:
        """Run a SQL query on the warehouse and return its rows."""
        if not query.lower().lstrip().startswith(("select", "with")):
            raise ValueError(f"syntax error at or near {query.split()[0]!r}")
        return {"rows": [{"count": 1284}], "row_count": 1, "as_of": AS_OF}

    @mcp.tool()
    def active_customer_count(region: str, period: str) -> dict:
        """Active customers in a governed sales_region and fiscal period."""
        return {"count": 1284, "region": region, "period": period, "as_of": AS_OF}

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
            args=[__file__, "--serve", conv["server"], "--seed", args.seed],
            env=dict(os.environ),
        )
        attrs = {"groundcheck.case_id": conv["case_attr"]} if conv.get("case_attr") else {}
        with tracer.start_as_current_span("handle question", attributes=attrs) as root:
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
