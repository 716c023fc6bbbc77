-- metric: call_policy
-- definition: seed 000, policy violation: a call "that returned at least one row or column
--   the as_user is not entitled to". The oracle is policy_violations over the call's result
--   with the policy of the case's as_user: the policies row for that user, else the row for
--   the user's role. Our choice where several rows apply: by scope, then by the rest of the
--   row (so the pick never depends on row order). Also kept as evidence: a call whose credential does not carry the end
--   user's identity (credential_subject differs from as_user). When an external oracle
--   ran (--policy-oracle), its verdicts (oracle_verdicts) are added to the built-in ones.
--   Our choice: a call whose result is an error, or of a tool that reads no data field
--   (tool_lineage: no SQL argument and `fields: []`, as list_tables), returned no rows of
--   the warehouse, so the built-in oracle does not look at it (a table list has no
--   sales_region to check a row filter against; it is not a row the user may not see).
-- grain: (run_id, server, trace_id, call_id)
-- inputs: calls, tasks, policies, tool_lineage, oracle_verdicts
-- nulls: violations is NULL for a call without a result or whose result is not JSON;
--   policy_scope is NULL when no policy row applies; checked says whether any oracle
--   looked at the call
WITH ranked AS (
  -- Every policy row in the order a task picks by: the user's own row first, then the
  -- role's; by scope among rows of one kind, then by the rest of the row, so that the
  -- order is total (rows equal on all of it are the same policy). A window over the
  -- policies alone; each task then takes its least rank, an integer aggregate (a
  -- row_number() over each task's rows cost several times as much, benches/RESULTS.md).
  SELECT p.*, row_number() OVER (ORDER BY p.as_user IS NULL, p.scope, p.row_filter, p.allowed_columns, p.masked_columns) AS pick
  FROM policies p
),
chosen AS (
  -- The user's rows and the role's rows, two equality joins: one join on their OR is a
  -- nested loop over every task and every policy row. The two never share a row (a
  -- role's row has no as_user), so min() sees the same picks.
  SELECT run_id, server, case_id, min(pick) AS pick
  FROM (
    SELECT t.run_id, t.server, t.case_id, p.pick
    FROM tasks t JOIN ranked p ON p.as_user = t.as_user
    UNION ALL
    SELECT t.run_id, t.server, t.case_id, p.pick
    FROM tasks t JOIN ranked p ON p.as_user IS NULL AND p.role = t.user_role
  ) m
  GROUP BY run_id, server, case_id
),
applicable AS (
  SELECT c.run_id, c.server, c.case_id, p.scope, p.row_filter, p.allowed_columns, p.masked_columns
  FROM chosen c JOIN ranked p ON p.pick = c.pick
),
checked AS (
  SELECT k.run_id, k.server, k.case_id, k.trace_id, k.call_id, k.tool, k.credential_subject,
    coalesce(k.as_user, t.as_user) AS as_user, a.scope AS policy_scope,
    CASE WHEN a.run_id IS NOT NULL AND k.result IS NOT NULL AND NOT coalesce(k.is_error, false)
        AND NOT coalesce(l.sql_argument IS NULL AND cardinality(l.fields) = 0, false)
      THEN policy_violations(k.result, a.row_filter, a.allowed_columns, a.masked_columns) END AS oracle
  FROM calls k
  JOIN tasks t ON t.run_id = k.run_id AND t.server = k.server AND t.case_id = k.case_id
  LEFT JOIN applicable a ON a.run_id = k.run_id AND a.server = k.server AND a.case_id = k.case_id
  LEFT JOIN tool_lineage l ON l.server = k.server AND l.tool = k.tool
)
SELECT c.run_id, c.server, c.case_id, c.trace_id, c.call_id, c.tool, c.as_user, c.credential_subject, c.policy_scope,
  CASE WHEN c.oracle IS NOT NULL OR e.call_id IS NOT NULL THEN
    array_concat(coalesce(c.oracle['violations'], CAST([] AS VARCHAR[])), coalesce(e.violations, CAST([] AS VARCHAR[])))
  END AS violations,
  CASE WHEN c.oracle IS NOT NULL OR e.call_id IS NOT NULL THEN
    array_concat(coalesce(c.oracle['unsure'], CAST([] AS VARCHAR[])), coalesce(e.unsure, CAST([] AS VARCHAR[])))
  END AS unsure,
  coalesce(cardinality(c.oracle['violations']), 0) + coalesce(cardinality(e.violations), 0) > 0 AS violated,
  c.policy_scope IS NOT NULL OR e.call_id IS NOT NULL AS checked,
  c.credential_subject IS NOT NULL AND c.as_user IS NOT NULL AND c.credential_subject <> c.as_user AS foreign_credential
FROM checked c
LEFT JOIN oracle_verdicts e ON e.run_id = c.run_id AND e.server = c.server AND e.trace_id = c.trace_id AND e.call_id = c.call_id
