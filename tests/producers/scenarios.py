"""The scripted conversations every producer plays: seed 000's opening example. Server A
guesses (is_active, region_code); Server B calls the task tool that carries the
definition. Token counts per model turn are what the scripted model reports."""

CONVERSATIONS = [
    {
        "name": "generic-emea-active",
        "question": "How many active customers did we have in EMEA last quarter?",
        "turns": [
            {"calls": [{"tool": "describe_table", "arguments": {"table": "customers"}, "id": "call_a1"}],
             "input_tokens": 1200, "output_tokens": 40},
            {"calls": [{"tool": "run_sql", "id": "call_a2", "arguments": {
                "query": "SELECT COUNT(*) FROM customers WHERE is_active = true "
                         "AND region_code LIKE 'EU%' AND created_at < '2026-07-01'"}}],
             "input_tokens": 1500, "output_tokens": 80},
            {"answer": "1284", "input_tokens": 1700, "output_tokens": 12},
        ],
    },
    {
        "name": "task-emea-active",
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
