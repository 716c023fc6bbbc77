-- view: trace_outcomes
-- definition: one row per trace with what `groundcheck sample` stratifies by (seed 000:
--   harvest cases from traces). outcome, the first that applies: failure (a tool error
--   no later successful call of that tool recovered from, or no answer step), clarification
--   (the agent asked the user a question: queries/metrics/clarification.sql), retry (a tool called more than once), clean
--   (a clean pass: none of these). tool is the trace's most-called tool (ties: first by
--   name; 'none' without calls). user_role is the role the trace records, else the role of
--   a case with the same as_user, else 'unknown'. question is the first user step's text.
-- grain: (run_id, server, trace_id)
-- inputs: steps, cases, trace_clarifications
-- nulls: case_id, as_user and question are NULL when the trace has none
WITH t AS (
  SELECT run_id, server, trace_id,
    max(case_id) AS case_id, max(as_user) AS as_user, max(user_role) AS user_role,
    count(*) FILTER (WHERE kind = 'tool_call') AS calls,
    count(DISTINCT tool) FILTER (WHERE kind = 'tool_call') AS tools,
    count(*) FILTER (WHERE kind = 'answer') AS answers
  FROM steps GROUP BY run_id, server, trace_id
),
first_user AS (
  SELECT run_id, server, trace_id, text AS question,
    row_number() OVER (PARTITION BY run_id, server, trace_id ORDER BY step) AS n
  FROM steps WHERE kind = 'user'
),
per_tool AS (
  SELECT run_id, server, trace_id, tool, count(*) AS n,
    row_number() OVER (PARTITION BY run_id, server, trace_id ORDER BY count(*) DESC, tool) AS rank
  FROM steps WHERE kind = 'tool_call' AND tool IS NOT NULL
  GROUP BY run_id, server, trace_id, tool
),
results AS (
  SELECT run_id, server, trace_id, tool, step, coalesce(is_error, false) AS is_error
  FROM steps WHERE kind = 'tool_result'
),
unrecovered AS (
  SELECT DISTINCT e.run_id, e.server, e.trace_id
  FROM results e
  WHERE e.is_error AND NOT EXISTS (
    SELECT 1 FROM results ok
    WHERE ok.run_id = e.run_id AND ok.server = e.server AND ok.trace_id = e.trace_id
      AND ok.tool = e.tool AND NOT ok.is_error AND ok.step > e.step)
),
roles AS (
  SELECT as_user, min(user_role) AS user_role FROM cases GROUP BY as_user
)
SELECT t.run_id, t.server, t.trace_id, t.case_id, t.as_user,
  coalesce(t.user_role, r.user_role, 'unknown') AS user_role,
  fu.question,
  coalesce(pt.tool, 'none') AS tool,
  CASE
    WHEN u.trace_id IS NOT NULL OR t.answers = 0 THEN 'failure'
    WHEN c.clarification_turns > 0 THEN 'clarification'
    WHEN t.calls > t.tools THEN 'retry'
    ELSE 'clean'
  END AS outcome,
  t.calls, c.clarification_turns AS clarifications
FROM t
LEFT JOIN first_user fu ON fu.run_id = t.run_id AND fu.server = t.server AND fu.trace_id = t.trace_id AND fu.n = 1
LEFT JOIN per_tool pt ON pt.run_id = t.run_id AND pt.server = t.server AND pt.trace_id = t.trace_id AND pt.rank = 1
LEFT JOIN unrecovered u ON u.run_id = t.run_id AND u.server = t.server AND u.trace_id = t.trace_id
LEFT JOIN roles r ON r.as_user = t.as_user
LEFT JOIN trace_clarifications c ON c.run_id = t.run_id AND c.server = t.server AND c.trace_id = t.trace_id
