-- label: failure_evidence
-- definition: seed 000's trace symptoms, one row per symptom found, with the class it
--   points to (entity, semantic, structural, temporal, policy) and the evidence.
--   semantic: a forbidden field used (forbidden-field); a business term not resolved to
--   its governed predicate (definition-mismatch); a reasoning step that hedges ("sounds
--   like", "probably", "i will assume") (hedging).
--   structural: an aggregate fanned out by a one-to-many join, or amounts of different
--   units combined (grain); a result with next_cursor set and no later call to the same
--   tool (pagination-not-followed).
--   temporal: a result without as_of or older than the bound (freshness); date filters
--   none of which is on the column the term's metric is defined on (time-column); date
--   bounds that do not include the case's window start and end (or the day after the
--   end, for an exclusive bound) (window).
--   policy: a result with rows or columns the user may not see (oracle); a call whose
--   credential does not carry the user's identity (foreign-credential).
--   entity: an argument whose value matches another identifier scheme than the one the
--   parameter takes (id-scheme).
-- grain: one row per (run_id, server, case_id, class, rule, evidence)
-- inputs: task_grounding, task_definition_match, task_freshness, call_policy, call_fields, call_time_filters, calls, steps, tasks, glossary, id_schemes, catalog_entries
-- nulls: call_id is NULL for task-level symptoms
SELECT run_id, server, case_id, NULL AS call_id, 'semantic' AS class, 'forbidden-field' AS rule,
  'used ' || array_to_string(forbidden_used, ', ') AS evidence
FROM task_grounding WHERE cardinality(forbidden_used) > 0
UNION ALL
SELECT run_id, server, case_id, NULL, 'semantic', 'definition-mismatch',
  'not resolved to the governed predicate: ' || array_to_string(definition_mismatched, ', ')
FROM task_definition_match WHERE definition_match = false
UNION ALL
SELECT run_id, server, case_id, NULL, 'semantic', 'hedging', 'step ' || CAST(step AS VARCHAR) || ': ' || text
FROM steps
WHERE kind = 'reasoning' AND case_id IS NOT NULL
  AND (lower(text) LIKE '%sounds like%' OR lower(text) LIKE '%probably%' OR lower(text) LIKE '%i will assume%' OR lower(text) LIKE '%i''ll assume%')
UNION ALL
SELECT f.run_id, f.server, f.case_id, f.call_id, 'structural', 'grain', g.issue
FROM (
  SELECT run_id, server, case_id, call_id,
    unnest(sql_grain_issues(sql, coalesce(dialect, 'generic'), (SELECT entries FROM catalog_entries))) AS issue
  FROM call_fields WHERE sql IS NOT NULL
) AS g JOIN call_fields f ON f.run_id = g.run_id AND f.server = g.server AND f.case_id = g.case_id AND f.call_id = g.call_id
UNION ALL
SELECT k.run_id, k.server, k.case_id, k.call_id, 'structural', 'pagination-not-followed',
  k.tool || ' returned next_cursor ' || json_get_str(k.result, 'next_cursor') || ' and no later ' || k.tool || ' call followed'
FROM calls k
WHERE json_get_str(k.result, 'next_cursor') IS NOT NULL
  AND NOT EXISTS (
    SELECT 1 FROM calls later
    WHERE later.run_id = k.run_id AND later.server = k.server AND later.trace_id = k.trace_id
      AND later.tool = k.tool AND later.step > k.step)
UNION ALL
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
  JOIN tasks t ON t.run_id = f.run_id AND t.server = f.server AND t.case_id = f.case_id
  JOIN glossary g ON strpos(lower(t.question), lower(g.term)) > 0 AND g.time_column IS NOT NULL
  GROUP BY f.run_id, f.server, f.case_id, f.call_id, g.term, g.time_column
) AS w
WHERE NOT array_has(w.fields, lower(w.time_column))
UNION ALL
SELECT b.run_id, b.server, b.case_id, b.call_id, 'temporal', 'window',
  'filters dates ' || array_to_string(b.bounds, ', ') || '; the case asks for ' || b.gold_start || ' to ' || b.gold_end
  || ' (' || b.calendar || ')'
FROM (
  SELECT f.run_id, f.server, f.case_id, f.call_id,
    CAST(t.gold['window']['start'] AS VARCHAR) AS gold_start,
    CAST(t.gold['window']['end'] AS VARCHAR) AS gold_end,
    CAST(CAST(t.gold['window']['end'] AS DATE) + INTERVAL '1 day' AS VARCHAR) AS gold_after,
    t.gold['window']['calendar'] AS calendar,
    array_sort(array_distinct(flatten(array_agg(make_array(substr(f.lower, 1, 10), substr(f.upper, 1, 10)))))) AS bounds
  FROM call_time_filters f
  JOIN tasks t ON t.run_id = f.run_id AND t.server = f.server AND t.case_id = f.case_id
  WHERE t.gold['window'] IS NOT NULL
  GROUP BY f.run_id, f.server, f.case_id, f.call_id, t.gold
) AS b
WHERE NOT (array_has(b.bounds, b.gold_start) AND (array_has(b.bounds, b.gold_end) OR array_has(b.bounds, b.gold_after)))
UNION ALL
SELECT run_id, server, case_id, call_id, 'policy', 'oracle', array_to_string(violations, '; ')
FROM call_policy WHERE violated
UNION ALL
SELECT run_id, server, case_id, call_id, 'policy', 'foreign-credential',
  tool || ' ran as ' || credential_subject || ', not as ' || as_user
FROM call_policy WHERE foreign_credential
UNION ALL
SELECT a.run_id, a.server, a.case_id, a.call_id, 'entity', 'id-scheme',
  a.tool || '.' || a.param || ' = ' || a.value || ' is a ' || other.scheme || ', the parameter takes ' || own.scheme
FROM (
  SELECT k.run_id, k.server, k.case_id, k.call_id, k.tool, p.param,
    json_get_str(k.arguments, p.param) AS value
  FROM calls k
  JOIN (SELECT DISTINCT split_part(unnest(parameters), '.', 1) AS tool, split_part(unnest(parameters), '.', 2) AS param FROM id_schemes) AS p
    ON p.tool = k.tool
) AS a
JOIN id_schemes own ON array_has(own.parameters, a.tool || '.' || a.param)
JOIN id_schemes other ON other.scheme <> own.scheme AND regexp_like(a.value, '^(' || other.regex || ')$')
WHERE a.value IS NOT NULL AND NOT regexp_like(a.value, '^(' || own.regex || ')$')
