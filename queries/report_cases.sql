-- view: report_cases
-- definition: the HTML report's case table: one row per task (labels) with the columns it
--   shows (server, run, case, correct, grounded, failure class, needs review, cost,
--   grounding precision and recall) and two that choose the rows a large report keeps.
--   `concern`, how badly the task went, worst first: 5 a policy violation (seed 000: a
--   release blocker), 4 a wrong answer, 3 correct but not grounded (the liability the
--   seed warns of), 2 undecided (correct or grounded NULL), 1 needs human review, 0 none
--   of these. `sample_key`, an md5 of run_id, server and case_id, so that the same labels
--   draw the same sample
-- grain: (run_id, server, case_id)
-- inputs: labels
-- nulls: as in labels (grounded and failure_class may be NULL); concern and sample_key
--   never are
SELECT run_id, server, case_id, correct, grounded, failure_class, needs_human_review,
  cost_usd, grounding_precision, grounding_recall, policy_violations,
  CASE
    WHEN policy_violations > 0 THEN 5
    WHEN correct = false THEN 4
    WHEN correct AND grounded = false THEN 3
    WHEN correct IS NULL OR grounded IS NULL THEN 2
    WHEN needs_human_review THEN 1
    ELSE 0
  END AS concern,
  md5(run_id || chr(31) || server || chr(31) || case_id) AS sample_key
FROM labels
