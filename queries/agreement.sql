-- report: agreement
-- definition: how the automatic labels compare with the hand labels (seed 000's "agreement
--   with hand-labeled cases"), over the tasks whose case carries a hand label: labeled
--   (tasks with human_correct), agree (of those, agrees_with_human: correct, grounded and
--   failure_class all equal the hand label's), and the human review decisions recorded:
--   reviewed (tasks with reviewed_by) and changed (of those, where correct, grounded or
--   failure_class differs from the automatic label)
-- grain: one row over all labels
-- inputs: labels
-- nulls: none; every count is 0 when no task has a hand label
SELECT
  count(*) FILTER (WHERE human_correct IS NOT NULL) AS labeled,
  count(*) FILTER (WHERE human_correct IS NOT NULL AND agrees_with_human) AS agree,
  count(*) FILTER (WHERE reviewed_by IS NOT NULL) AS reviewed,
  count(*) FILTER (WHERE reviewed_by IS NOT NULL AND ((correct IS DISTINCT FROM auto_correct)
    OR (grounded IS DISTINCT FROM auto_grounded)
    OR (failure_class IS DISTINCT FROM auto_failure_class))) AS changed
FROM labels
