"""The warehouse's tools, shared by the fastmcp 4 server (warehouse_server.py) and the
1.x SDK's FastMCP server (mcp_sdk_client.py --serve).

Where real servers put `as_of` differs, and the scenario plays both: the generic tools
return it in the result body; the task tool returns it in the result's `_meta` (a tool's
"_meta" key here; `with_meta` makes each library's result with it), and its body carries
a top-level `is_error` key of its own (a field of the data, not MCP's flag)."""

import datetime
import functools
import json


def as_of() -> str:
    t = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=15)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def list_tables() -> dict:
    """Tables of the warehouse."""
    return {"tables": 212, "sample": ["customers", "subscriptions", "orders"], "as_of": as_of()}


def describe_table(table: str) -> dict:
    """Columns of a warehouse table."""
    return {"columns": ["status", "is_active", "region_code", "geo", "created_at", "updated_at"],
            "more": 41, "as_of": as_of()}


def run_sql(sql: str) -> dict:
    """Run a SQL query on the warehouse and return its rows."""
    if not sql.lower().lstrip().startswith(("select", "with")):
        raise ValueError(f"syntax error at or near {sql.split()[0]!r}")
    return {"columns": ["count"], "rows": [[1284]], "as_of": as_of()}


def active_customer_count(region: str, period: str) -> dict:
    """Active customers (subscription_status in ACTIVE, PAUSED_BILLING at any point in
    the fiscal period) in a governed sales_region."""
    return {"count": 1284, "window": {"start": "2026-04-01", "end": "2026-06-30", "calendar": "fiscal"},
            "is_error": False, "_meta": {"as_of": as_of()}}


def with_meta(f, make):
    """`f` as a tool whose "_meta" key goes to the result's `_meta`: `make(text, body,
    meta)` builds the library's result; results without the key pass as they are."""

    @functools.wraps(f)
    def tool(*args, **kwargs):
        body = f(*args, **kwargs)
        if not (isinstance(body, dict) and "_meta" in body):
            return body
        body = dict(body)
        meta = body.pop("_meta")
        return make(json.dumps(body), body, meta)

    return tool



TOOLS = [list_tables, describe_table, run_sql, active_customer_count]
