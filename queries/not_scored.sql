-- report: not_scored
-- definition: the report's note of what a server's tasks are not scored on and why (issue
--   #50, "score a project on what it has"): one row per server and figure that some task
--   is not scored on (labels' not_scored), with the tasks it concerns out of all the
--   server's tasks and the reason, the same for every task: grounding (the case names no
--   required or forbidden field, so nothing says what the right reason is), policy (the
--   project has no policies row and no policy oracle ran) and definition (the project has
--   no glossary) and cost (nothing priced the task). Such figures are NULL in labels and the report, and no task goes to
--   review for them.
-- grain: (server, figure)
-- inputs: labels
-- nulls: a task without a server counts under '?'
WITH reasons(figure, reason) AS (VALUES
  ('grounding', 'their cases name no required or forbidden field (gold.required_fields is empty), so nothing says which fields ground the answer'),
  ('policy', 'the project has no policies and no --policy-oracle, so no call''s rows were checked against an entitlement'),
  ('definition', 'the project has no glossary, so no business term was matched against its governed definition'),
  ('cost', 'their traces report no usage or USD, pricing prices none of their models or tools, and their cases have no cost block')
),
per_task AS (
  SELECT coalesce(l.server, '?') AS srv, unnest(l.not_scored) AS figure FROM labels l
),
totals AS (
  SELECT coalesce(l.server, '?') AS srv, count(*) AS of_tasks FROM labels l GROUP BY 1
)
SELECT p.srv AS server, p.figure, count(*) AS tasks, t.of_tasks, r.reason
FROM per_task p
JOIN totals t ON t.srv = p.srv
JOIN reasons r ON r.figure = p.figure
GROUP BY p.srv, p.figure, t.of_tasks, r.reason
