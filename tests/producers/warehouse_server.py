"""A real fastmcp 4 server over stdio: a small warehouse with a generic `run_sql` and
`describe_table` (seed 000's Server A) and a task tool `active_customer_count` (Server
B). Results carry `as_of` the ways real servers put it: in the structured result body.
Instrumented by fastmcp's own OpenTelemetry spans (exported like the agent's)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402

NAME = os.environ.get("GC_SERVER_NAME", "warehouse")
spans_file = os.environ.get("GC_SPANS_FILE_SERVER")
provider = otel_setup.setup(
    NAME,
    os.environ.get("GC_ID_SEED", "server") + "-" + NAME,
    f"{spans_file}-{NAME}" if spans_file else None,
)

from fastmcp import FastMCP  # noqa: E402

mcp = FastMCP(NAME)
AS_OF = "2026-11-30T06:00:00Z"


@mcp.tool
def describe_table(table: str) -> dict:
    """Columns of a warehouse table."""
    cols = {
        "customers": ["customer_id", "status", "is_active", "region_code", "sales_region",
                      "subscription_status", "created_at"],
        "subscriptions": ["subscription_id", "customer_id", "period_start", "period_end"],
    }
    return {"table": table, "columns": cols.get(table, []), "as_of": AS_OF}


@mcp.tool
def run_sql(query: str) -> dict:
    """Run a SQL query on the warehouse and return its rows."""
    q = query.lower()
    if not q.lstrip().startswith(("select", "with")):
        raise ValueError(f"syntax error at or near {query.split()[0]!r}")
    if "count(" in q:
        rows = [{"count": 1284}]
    else:
        rows = [{"customer_id": 1}, {"customer_id": 2}]
    return {"rows": rows, "row_count": len(rows), "as_of": AS_OF}


@mcp.tool
def active_customer_count(region: str, period: str) -> dict:
    """Active customers (subscription_status in ACTIVE, PAUSED_BILLING at any point in
    the fiscal period) in a governed sales_region."""
    return {"count": 1284, "region": region, "period": period, "as_of": AS_OF}


if __name__ == "__main__":
    try:
        mcp.run(show_banner=False)
    finally:
        provider.shutdown()
