-- label: failures_structural
-- definition: seed 000, structural class ("a bad join, a missed pagination, a
--   fan-out, a unit mismatch"). Trace symptoms: "aggregation after a one-to-many join" and
--   "amounts in cents compared to amounts in dollars" (grain, sql_grain_issues); "a
--   paginated response with next_cursor set and no follow-up call"
--   (pagination-not-followed: no later call to the same tool in the trace)
-- grain: one row per symptom: (run_id, server, case_id, call_id, class, rule, evidence)
-- inputs: call_fields, calls, catalog_entries
-- nulls: call_id is NULL for a task-level symptom
SELECT * FROM (
SELECT run_id, server, case_id, call_id, 'structural', 'grain',
  unnest(sql_grain_issues(sql, coalesce(dialect, 'generic'), (SELECT entries FROM catalog_entries)))
FROM call_fields WHERE sql IS NOT NULL AND NOT is_error
UNION ALL
SELECT k.run_id, k.server, k.case_id, k.call_id, 'structural', 'pagination-not-followed',
  k.tool || ' returned next_cursor ' || json_get_str(k.result, 'next_cursor') || ' and no later ' || k.tool || ' call followed'
FROM calls k
WHERE json_get_str(k.result, 'next_cursor') IS NOT NULL
  AND NOT EXISTS (
    SELECT 1 FROM calls later
    WHERE later.run_id = k.run_id AND later.server = k.server AND later.trace_id = k.trace_id
      AND later.tool = k.tool AND later.step > k.step)
) AS f(run_id, server, case_id, call_id, class, rule, evidence)
