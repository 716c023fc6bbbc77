-- view: task_failures
-- definition: failure_evidence per task, what labels reads of it: the classes with a
--   symptom (hedging aside: a sign to look at, never a class), whether the reasoning
--   hedged, and every symptom as 'class/rule: evidence', sorted. A view of its own for the
--   reason task_policy is (computed once per chunk into memory).
-- grain: (run_id, server, case_id)
-- inputs: failure_evidence
-- nulls: none; a task without a symptom has no row (labels reads empty lists)
SELECT run_id, server, case_id,
  array_sort(array_distinct(array_agg(class) FILTER (WHERE rule <> 'hedging'))) AS symptom_classes,
  bool_or(rule = 'hedging') AS hedged,
  array_sort(array_agg(class || '/' || rule || ': ' || evidence)) AS evidence
FROM failure_evidence GROUP BY run_id, server, case_id
