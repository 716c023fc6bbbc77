-- view: precision_recall_points
-- definition: the HTML report's scatter of grounding precision against grounding recall,
--   per task (seed 000: "report both at the task level ... and at the suite level"): each
--   task's grounding_precision and grounding_recall (labels) rounded to two decimals, and
--   the tasks at each point, per server and run, so that a million tasks draw as at most
--   101 x 101 points a side
-- grain: (server, run_id, precision, recall)
-- inputs: labels
-- nulls: tasks whose precision or recall is NULL (no call used a field, or nothing is
--   required) are left out; the page says how many
SELECT server, run_id, round(grounding_precision, 2) AS precision,
  round(grounding_recall, 2) AS recall, count(*) AS tasks
FROM labels
WHERE grounding_precision IS NOT NULL AND grounding_recall IS NOT NULL
GROUP BY server, run_id, round(grounding_precision, 2), round(grounding_recall, 2)
