-- report: agreement_differences
-- definition: the hand-labeled tasks whose automatic label does not agree with the hand
--   label (agrees_with_human is not true), with both labels side by side, in the labels'
--   order
-- grain: (run_id, server, case_id)
-- inputs: labels
-- nulls: as labels: an undecided automatic value is NULL
SELECT run_id, server, case_id, correct, grounded, failure_class,
  human_correct, human_grounded, human_failure_class
FROM labels
WHERE human_correct IS NOT NULL AND agrees_with_human IS NOT TRUE
ORDER BY run_id, server, case_id
