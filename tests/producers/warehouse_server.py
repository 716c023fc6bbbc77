"""A real fastmcp 4 server over stdio: a small warehouse with the generic tools of seed
000's Server A (`list_tables`, `describe_table`, `run_sql`) and the task tool of Server B
(`active_customer_count`). Results carry `as_of` (15 minutes before the call) as real
servers put it: in the result body, and for the task tool in the result's `_meta`. Instrumented by fastmcp's own OpenTelemetry spans, and
exported like the agent's. GC_SERVER_NAME names the server."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402

NAME = os.environ.get("GC_SERVER_NAME", "warehouse")
spans_file = os.environ.get("GC_SPANS_FILE_SERVER")
# A client that starts a server per call (llama-index-tools-mcp) asks for span ids apart
# per process; otherwise they are fixed by the seed.
seed = os.environ.get("GC_ID_SEED", "server") + "-" + NAME
if os.environ.get("GC_ID_PER_PROCESS"):
    seed += f"-{os.getpid()}"
provider = otel_setup.setup(
    NAME,
    seed,
    f"{spans_file}-{NAME}" if spans_file else None,
)

from fastmcp import FastMCP  # noqa: E402

mcp = FastMCP(NAME)


from fastmcp.tools import ToolResult  # noqa: E402
from mcp.types import TextContent  # noqa: E402
from warehouse_tools import TOOLS, with_meta  # noqa: E402


def result(text, body, meta):
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=body, meta=meta)


for f in TOOLS:
    mcp.tool(with_meta(f, result))


if __name__ == "__main__":
    try:
        mcp.run(show_banner=False)
    finally:
        provider.shutdown()
