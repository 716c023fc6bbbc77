-- view: task_policy
-- definition: call_policy summed per task, what labels reads of it: the task's calls,
--   how many broke a policy, whether a call's user had no policy row (no_policy), and
--   what could not be checked (policy_unsure, every call's reasons in one list, sorted).
--   A view of its own, not a step of labels, so that labelling in chunks computes it once
--   into memory (src/eval/chunks.rs MATERIALIZED): the sorts of labels' joins then read
--   compact rows instead of the aggregate's output.
-- grain: (run_id, server, case_id)
-- inputs: call_policy
-- nulls: none; a task without calls has no row (labels counts it as 0 calls)
SELECT run_id, server, case_id,
  count(*) AS calls,
  count(*) FILTER (WHERE violated) AS policy_violations,
  bool_or(NOT checked) AS no_policy,
  flatten(array_agg(coalesce(unsure, CAST([] AS VARCHAR[])))) AS policy_unsure
FROM call_policy GROUP BY run_id, server, case_id
