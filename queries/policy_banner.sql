-- report: policy_banner
-- definition: seed 000 calls any policy violation a release blocker: per server with at
--   least one violating call, the calls that returned rows or columns the user may not see
--   (violations) and all calls, shown before anything else in the report
-- grain: (server)
-- inputs: labels
-- nulls: a task without a server counts under '?'
SELECT coalesce(server, '?') AS server, sum(policy_violations) AS violations, sum(calls) AS calls
FROM labels
GROUP BY 1
HAVING sum(policy_violations) > 0
ORDER BY 1
