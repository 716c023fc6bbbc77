-- metric: call_policy
-- definition: seed 000, policy violation: a call "that returned at least one row or column
--   the as_user is not entitled to". The oracle is policy_violations over the call's result
--   with the policy of the case's as_user: the policies row for that user, else the row for
--   the user's role. Also kept as evidence: a call whose credential does not carry the end
--   user's identity (credential_subject differs from as_user).
-- grain: (run_id, server, trace_id, call_id)
-- inputs: calls, tasks, policies
-- nulls: violations is NULL for a call without a result or whose result is not JSON;
--   policy_scope is NULL when no policy row applies (then nothing could be checked)
WITH applicable AS (
  SELECT t.run_id, t.server, t.case_id, t.as_user, p.scope, p.row_filter, p.allowed_columns, p.masked_columns,
    row_number() OVER (PARTITION BY t.run_id, t.server, t.case_id ORDER BY p.as_user IS NULL, p.scope) AS n
  FROM tasks t JOIN policies p ON p.as_user = t.as_user OR (p.as_user IS NULL AND p.role = t.user_role)
),
checked AS (
  SELECT k.run_id, k.server, k.case_id, k.trace_id, k.call_id, k.tool, k.credential_subject,
    coalesce(k.as_user, t.as_user) AS as_user, a.scope AS policy_scope,
    CASE WHEN a.run_id IS NOT NULL AND k.result IS NOT NULL
      THEN policy_violations(k.result, a.row_filter, a.allowed_columns, a.masked_columns) END AS oracle
  FROM calls k
  JOIN tasks t ON t.run_id = k.run_id AND t.server = k.server AND t.case_id = k.case_id
  LEFT JOIN applicable a ON a.run_id = k.run_id AND a.server = k.server AND a.case_id = k.case_id AND a.n = 1
)
SELECT run_id, server, case_id, trace_id, call_id, tool, as_user, credential_subject, policy_scope,
  oracle['violations'] AS violations,
  oracle['unsure'] AS unsure,
  coalesce(cardinality(oracle['violations']), 0) > 0 AS violated,
  credential_subject IS NOT NULL AND as_user IS NOT NULL AND credential_subject <> as_user AS foreign_credential
FROM checked
