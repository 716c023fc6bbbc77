-- report: lineage_warnings
-- definition: one warning per server and tool that has no lineage while its tasks needed
--   catalog fields (the labels' "no lineage for" review reason), with the tasks scored
--   ungrounded for it: without it such a project scores ungrounded and nothing says why
-- grain: (server, reason)
-- inputs: labels
-- nulls: a task without a server counts under '?'
SELECT coalesce(server, '?') AS server, reason, count(*) AS tasks
FROM (SELECT server, unnest(review_reasons) AS reason FROM labels) AS r
WHERE starts_with(reason, 'no lineage for ')
GROUP BY 1, 2
ORDER BY 1, 2
