-- label: failures_temporal
-- definition: seed 000, temporal class ("right everything, wrong time"). Trace
--   symptoms: "no freshness metadata in the tool result" and data older than the bound
--   (freshness); "a date filter on a column other than the one the metric definition
--   names" (time-column: none of the call's date filters is on the term's time_column);
--   "a window computed from today's date with no fiscal calendar lookup", calendar where
--   fiscal is asked (window: the date bounds do not include the case's window start and
--   end, or the day after the end for an exclusive bound)
-- grain: one row per symptom: (run_id, server, case_id, call_id, class, rule, evidence)
-- inputs: task_freshness, call_time_filters, tasks, task_terms
-- nulls: call_id is NULL for a task-level symptom
SELECT * FROM (
SELECT run_id, server, case_id, NULL, 'temporal', 'freshness',
  CASE WHEN results_without_as_of > 0 THEN CAST(results_without_as_of AS VARCHAR) || ' result(s) without as_of'
       WHEN results = 0 THEN 'no result carried an as_of'
       ELSE 'oldest result ' || CAST(round(oldest_result_hours, 1) AS VARCHAR) || ' h old, bound ' || CAST(bound_hours AS VARCHAR) || ' h' END
FROM task_freshness WHERE freshness_pass = false
UNION ALL
SELECT w.run_id, w.server, w.case_id, w.call_id, 'temporal', 'time-column',
  'filters time on ' || array_to_string(w.fields, ', ') || ', the metric of ' || w.term || ' is defined on ' || w.time_column
FROM (
  SELECT f.run_id, f.server, f.case_id, f.call_id, g.term, g.time_column, array_sort(array_agg(f.field)) AS fields
  FROM call_time_filters f
  JOIN task_terms g ON g.run_id = f.run_id AND g.server = f.server AND g.case_id = f.case_id
    AND g.time_column IS NOT NULL
  GROUP BY f.run_id, f.server, f.case_id, f.call_id, g.term, g.time_column
) AS w
WHERE NOT array_has(w.fields, lower(w.time_column))
UNION ALL
SELECT b.run_id, b.server, b.case_id, b.call_id, 'temporal', 'window',
  'filters dates ' || array_to_string(b.bounds, ', ') || '; the case asks for ' || b.gold_start || ' to ' || b.gold_end
  || ' (' || b.calendar || ')'
FROM (
  SELECT f.run_id, f.server, f.case_id, f.call_id, t.gold_start, t.gold_end, t.gold_after, t.calendar,
    array_sort(array_distinct(flatten(array_agg(make_array(substr(f.lower, 1, 10), substr(f.upper, 1, 10)))))) AS bounds
  FROM call_time_filters f
  -- The window's fields, not the gold struct: grouping by a nested column is slow.
  JOIN (
    SELECT run_id, server, case_id,
      CAST(gold['window']['start'] AS VARCHAR) AS gold_start,
      CAST(gold['window']['end'] AS VARCHAR) AS gold_end,
      CAST(CAST(gold['window']['end'] AS DATE) + INTERVAL '1 day' AS VARCHAR) AS gold_after,
      gold['window']['calendar'] AS calendar
    FROM tasks WHERE gold['window'] IS NOT NULL
  ) t ON t.run_id = f.run_id AND t.server = f.server AND t.case_id = f.case_id
  GROUP BY f.run_id, f.server, f.case_id, f.call_id, t.gold_start, t.gold_end, t.gold_after, t.calendar
) AS b
WHERE NOT (array_has(b.bounds, b.gold_start) AND (array_has(b.bounds, b.gold_end) OR array_has(b.bounds, b.gold_after)))
) AS f(run_id, server, case_id, call_id, class, rule, evidence)
