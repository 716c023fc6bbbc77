"""The scripted conversations every producer plays: seed 000's opening example, as the
bundled demo records it for case emea-active-q2-017 (datasets/demo). Server A
(`generic-warehouse`) lists tables, reads `customers`, guesses (is_active, region_code)
and says so; Server B (`task-specific`) calls the task tool that carries the definition.
A third conversation sends a query the server rejects, then retries. In a fourth the model
asks the user which region they mean and the user answers in a second turn (the agent run
again with the conversation so far): one clarification loop as seed 000 counts them.
Token counts per model turn add up to the demo trace's, so the imported traces must label
exactly as the demo's golden labels for that case (tests/it/producers.rs)."""

MODEL = "claude-sonnet-4-5"
USER = "fin.analyst.02"
QUESTION = "How many active customers did we have in EMEA last quarter?"
GUESS = ("is_active sounds like the right flag. region_code probably starts with EU for "
         "EMEA. I will filter on both.")
GUESS_SQL = ("SELECT COUNT(*) FROM customers WHERE is_active = true "
             "AND region_code LIKE 'EU%' AND created_at < '2026-07-01'")

CONVERSATIONS = [
    {
        "name": "generic-emea-active",
        "server": "generic-warehouse",
        "question": QUESTION,
        # Tied to its case by source_trace (the test writes the trace id into the case).
        "turns": [
            {"calls": [{"tool": "list_tables", "arguments": {}, "id": "call_a1"}],
             "input_tokens": 8200, "output_tokens": 40},
            {"calls": [{"tool": "describe_table", "arguments": {"table": "customers"}, "id": "call_a2"}],
             "input_tokens": 11900, "output_tokens": 60},
            {"text": GUESS, "calls": [{"tool": "run_sql", "id": "call_a3", "arguments": {"sql": GUESS_SQL}}],
             "input_tokens": 20700, "output_tokens": 1820},
            {"answer": "1,284", "input_tokens": 1800, "output_tokens": 90},
        ],
    },
    {
        "name": "task-emea-active",
        "server": "task-specific",
        "question": QUESTION,
        # Tied to its case by the documented span attribute.
        "case_attr": "emea-active-q2-017",
        "turns": [
            {"calls": [{"tool": "active_customer_count", "id": "call_b1",
                        "arguments": {"region": "EMEA", "period": "FY2027-Q1"}}],
             "input_tokens": 2100, "output_tokens": 45},
            {"answer": "1,284 active customers in EMEA in fiscal Q1 FY2027 (Apr 1 - Jun 30, 2026).",
             "input_tokens": 1800, "output_tokens": 90},
        ],
    },
    {
        "name": "generic-bad-query",
        "server": "generic-warehouse",
        "question": "How many customers are there?",
        # No case: a harvested production trace.
        "turns": [
            {"calls": [{"tool": "run_sql", "id": "call_c1", "arguments": {"sql": "SELEC COUNT(*) FROM customers"}}],
             "input_tokens": 500, "output_tokens": 20},
            {"calls": [{"tool": "run_sql", "id": "call_c2", "arguments": {"sql": "SELECT COUNT(*) FROM customers"}}],
             "input_tokens": 600, "output_tokens": 20},
            {"answer": "1,284", "input_tokens": 700, "output_tokens": 5},
        ],
    },
    {
        "name": "task-clarified",
        "server": "task-specific",
        "question": "How many active customers did we have last quarter?",
        # No case. The first run ends with the model's question; `reply` is the user's
        # answer, sent as a second run with the first run's messages as history. The
        # scripted model counts the assistant messages it is sent, so the turns go on.
        "reply": "EMEA, please.",
        "turns": [
            {"answer": "Which region do you mean: EMEA, AMER or APAC?",
             "input_tokens": 900, "output_tokens": 15},
            {"calls": [{"tool": "active_customer_count", "id": "call_d1",
                        "arguments": {"region": "EMEA", "period": "FY2027-Q1"}}],
             "input_tokens": 2300, "output_tokens": 45},
            {"answer": "1,284 active customers in EMEA in fiscal Q1 FY2027.",
             "input_tokens": 2500, "output_tokens": 20},
        ],
    },
]


def root_attributes(conv):
    """The attributes of the application's own root span for one conversation: its end
    user, as the OTel convention names it, and the documented case tie when the scenario
    uses it."""
    attrs = {"enduser.id": USER}
    if conv.get("case_attr"):
        attrs["groundcheck.case_id"] = conv["case_attr"]
    return attrs


def warehouse_server(conv, seed):
    """How a producer in a venv of its own starts the fastmcp warehouse server for one
    conversation: (python, args, env). The server runs under GC_SERVER_PYTHON (the
    producers venv, with fastmcp 4); its span ids are seeded per server process."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    python = os.environ.get("GC_SERVER_PYTHON", sys.executable)
    env = {**os.environ, "GC_SERVER_NAME": conv["server"], "GC_ID_SEED": f"{seed}-{conv['name']}"}
    return python, [os.path.join(here, "warehouse_server.py")], env
