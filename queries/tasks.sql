-- view: tasks
-- definition: one task per (run_id, server, case_id): a case's question answered by one
--   server in one run, joined to its gold record; the answer is the text of the task's
--   last answer step (by step, then ts, then trace_id); answer_span_id is that step's span and
--   call_span_ids the spans of the task's tool calls in order (imported and collected
--   traces carry span ids: where `annotate` puts the verdicts back)
-- grain: (run_id, server, case_id)
-- inputs: steps, cases
-- nulls: answer and answer_span_id are NULL when the trace has no answer step (the span
--   also when the step came from no span); call_span_ids is empty without spans; label_* are the case's hand
--   label, which describes its source trace: it applies where is_source_trace; gold columns are NULL when the
--   case_id is not in cases (such tasks are kept so they are not lost)
WITH answers AS (
  -- An aggregate, not row_number() over each task: a window over this many partitions
  -- cost several times as much (benches/RESULTS.md). (trace_id, step) places a step in
  -- a task, so the order is total and the text and the span are one step's (unless two
  -- events share a trace and a position).
  SELECT run_id, server, case_id,
    last_value(text ORDER BY step, ts, trace_id) AS text,
    last_value(span_id ORDER BY step, ts, trace_id) AS span_id
  FROM steps WHERE kind = 'answer' AND case_id IS NOT NULL
  GROUP BY run_id, server, case_id
),
task AS (
  SELECT run_id, server, case_id, count(DISTINCT trace_id) AS traces, array_sort(array_agg(DISTINCT trace_id)) AS trace_ids
  FROM steps WHERE case_id IS NOT NULL
  GROUP BY run_id, server, case_id
),
-- Apart from task: an ordered aggregate sorts every row it reads, so it reads only calls
-- with spans.
spans AS (
  SELECT run_id, server, case_id, array_agg(span_id ORDER BY trace_id, step) AS call_span_ids
  FROM steps WHERE case_id IS NOT NULL AND kind = 'tool_call' AND span_id IS NOT NULL
  GROUP BY run_id, server, case_id
)
SELECT t.run_id, t.server, t.case_id, t.traces, t.trace_ids, a.text AS answer,
  a.span_id AS answer_span_id, coalesce(s.call_span_ids, CAST([] AS VARCHAR[])) AS call_span_ids,
  c.case_id IS NOT NULL AS has_case, c.user_role, c.as_user, c.question, c.gold,
  -- The hand label describes the case's source trace only.
  array_has(t.trace_ids, c.source_trace) AS is_source_trace,
  c.label['correct'] AS label_correct, c.label['grounded'] AS label_grounded,
  c.label['failure_class'] AS label_failure_class,
  c.cost AS recorded_cost
FROM task t
LEFT JOIN answers a ON a.run_id = t.run_id AND a.server = t.server AND a.case_id = t.case_id
LEFT JOIN cases c ON c.case_id = t.case_id
LEFT JOIN spans s ON s.run_id = t.run_id AND s.server = t.server AND s.case_id = t.case_id
