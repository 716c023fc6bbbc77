-- report: agreement_by_class
-- definition: per failure class, over the hand-labeled tasks (human_correct set): hand (tasks
--   the hand label puts in the class), auto (tasks the automatic label puts there) and both;
--   every class is listed, with its precedence in labels.failure_class (failure_classes:
--   order by it)
-- grain: (class)
-- inputs: labels, failure_classes
-- nulls: none; a class no task has counts 0
SELECT f.class, f.precedence,
  count(l.case_id) FILTER (WHERE l.human_failure_class = f.class) AS hand,
  count(l.case_id) FILTER (WHERE l.failure_class = f.class) AS auto,
  count(l.case_id) FILTER (WHERE l.human_failure_class = f.class AND l.failure_class = f.class) AS both
FROM failure_classes f
LEFT JOIN labels l ON l.human_correct IS NOT NULL
  AND (l.human_failure_class = f.class OR l.failure_class = f.class)
GROUP BY f.class, f.precedence
ORDER BY f.precedence
