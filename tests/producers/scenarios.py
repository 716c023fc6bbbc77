"""The scripted conversations every producer plays: seed 000's opening example. Server A
(`generic-warehouse`) guesses (is_active, region_code) and says so in its reasoning, after
one rejected query; Server B (`task-warehouse`) calls the task tool that carries the
definition. Token counts per model turn are what the scripted model reports. The hand-
worked gold and labels for these conversations are in tests/producers/cases.jsonl."""

GUESS = ("is_active sounds like the right flag. region_code probably starts with EU for "
         "EMEA. I will filter on both.")
GOOD_SQL = ("SELECT COUNT(*) FROM customers WHERE is_active = true "
            "AND region_code LIKE 'EU%' AND created_at < '2026-07-01'")

CONVERSATIONS = [
    {
        "name": "generic-emea-active",
        "server": "generic-warehouse",
        "question": "How many active customers did we have in EMEA last quarter?",
        "turns": [
            {"calls": [{"tool": "describe_table", "arguments": {"table": "customers"}, "id": "call_a1"}],
             "input_tokens": 1200, "output_tokens": 40},
            # A query the server rejects (a real tool error), then the retry.
            {"calls": [{"tool": "run_sql", "id": "call_a2", "arguments": {
                "query": "SELEC COUNT(*) FROM customers"}}],
             "input_tokens": 1500, "output_tokens": 60},
            {"text": GUESS, "calls": [{"tool": "run_sql", "id": "call_a3", "arguments": {"query": GOOD_SQL}}],
             "input_tokens": 1600, "output_tokens": 80},
            {"answer": "1284", "input_tokens": 1700, "output_tokens": 12},
        ],
    },
    {
        "name": "task-emea-active",
        "server": "task-warehouse",
        "question": "How many active customers did we have in EMEA last quarter?",
        "case_attr": "emea-active-q2-b",
        "turns": [
            {"calls": [{"tool": "active_customer_count", "id": "call_b1",
                        "arguments": {"region": "EMEA", "period": "2026-Q2"}}],
             "input_tokens": 900, "output_tokens": 30},
            {"answer": "1284", "input_tokens": 1000, "output_tokens": 10},
        ],
    },
]
