-- view: case_steps
-- definition: the HTML report's trace panels, seed 000's cards: every step of each task,
--   in trace and step order, with what the scorer saw there. On a tool_call step: the SQL
--   the call ran and the fields it used (call_fields: fields, and logic_fields, those its
--   filters, joins, grouping and aggregates read), the gold record's required and
--   forbidden fields (the page colours each used field by them), and the evidence of each
--   failure symptom tied to that call (failure_evidence rows with its call_id, as
--   `class/rule: evidence`). On a reasoning step: `guessed` when it hedges (hedged_steps,
--   the semantic class's hedging symptom: "the step where the model guessed"). Our
--   choice: a symptom of the whole task (call_id NULL) is not pinned to a step; the page
--   lists it above the steps, but for hedging, whose step is marked
-- grain: (run_id, server, case_id, trace_id, step)
-- inputs: steps, cases, call_fields, failure_evidence, hedged_steps
-- nulls: sql, fields and logic_fields are NULL on steps that are not tool calls (sql also
--   on calls that carry none); evidence is an empty list where there is none; required
--   and forbidden are the gold record's lists as given (forbidden NULL when it has none)
WITH ev AS (
  SELECT run_id, server, case_id, call_id,
    array_agg(class || '/' || rule || ': ' || evidence ORDER BY class, rule, evidence) AS evidence
  FROM failure_evidence
  WHERE call_id IS NOT NULL
  GROUP BY run_id, server, case_id, call_id
)
SELECT s.run_id, s.server, s.case_id, s.trace_id, s.step, s.kind, s.tool, s.call_id,
  s.arguments, s.result, s.is_error, s.as_of, s.text,
  f.sql, f.fields, f.logic_fields,
  c.gold.required_fields AS required, c.gold.forbidden_fields AS forbidden,
  coalesce(ev.evidence, CAST([] AS VARCHAR[])) AS evidence,
  h.step IS NOT NULL AS guessed
FROM steps s
LEFT JOIN cases c ON c.case_id = s.case_id
LEFT JOIN call_fields f ON s.kind = 'tool_call' AND f.run_id = s.run_id
  AND f.server = s.server AND f.trace_id = s.trace_id AND f.call_id = s.call_id
LEFT JOIN ev ON s.kind = 'tool_call' AND ev.run_id = s.run_id AND ev.server = s.server
  AND ev.case_id = s.case_id AND ev.call_id = s.call_id
LEFT JOIN hedged_steps h ON h.run_id = s.run_id AND h.server = s.server
  AND h.trace_id = s.trace_id AND h.step = s.step
WHERE s.case_id IS NOT NULL
