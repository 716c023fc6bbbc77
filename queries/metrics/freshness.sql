-- metric: task_freshness
-- definition: seed 000, "tasks where the as_of timestamp of every result was within the
--   task's freshness_bound_hours / tasks with a freshness bound. If the tool result carries
--   no timestamp, the task fails freshness." A result's age is its arrival time (the
--   result step's ts, else the call's) minus its as_of. Our choice: a task with a bound
--   but no result at all read no data; its freshness_pass is NULL, so it counts in the
--   rate's denominator (it has a bound) and not in its numerator.
-- grain: (run_id, server, case_id)
-- inputs: tasks, calls
-- nulls: freshness_pass is NULL when the case has no freshness bound, when the task read
--   no result, or when a result's
--   age cannot be computed (no ts on the result or the call; see freshness_unknown)
WITH r AS (
  SELECT run_id, server, case_id, as_of,
    (date_part('epoch', coalesce(result_ts, call_ts)) - date_part('epoch', as_of)) / 3600.0 AS age_hours,
    coalesce(result_ts, call_ts) IS NULL AND as_of IS NOT NULL AS unknown
  FROM calls WHERE result_step IS NOT NULL
),
-- The bound alone, not the gold struct: grouping by a nested column is slow.
t AS (SELECT run_id, server, case_id, gold['freshness_bound_hours'] AS bound_hours FROM tasks)
SELECT t.run_id, t.server, t.case_id, t.bound_hours,
  count(r.case_id) AS results,
  count(r.case_id) FILTER (WHERE r.as_of IS NULL) AS results_without_as_of,
  max(r.age_hours) AS oldest_result_hours,
  CASE
    WHEN t.bound_hours IS NULL THEN NULL
    WHEN count(r.case_id) = 0 THEN NULL
    WHEN bool_or(r.as_of IS NULL) THEN false
    WHEN bool_or(r.age_hours > t.bound_hours) THEN false
    WHEN bool_or(r.unknown) THEN NULL
    ELSE true
  END AS freshness_pass,
  coalesce(bool_or(r.unknown), false) AS freshness_unknown
FROM t
LEFT JOIN r ON r.run_id = t.run_id AND r.server = t.server AND r.case_id = t.case_id
GROUP BY t.run_id, t.server, t.case_id, t.bound_hours
