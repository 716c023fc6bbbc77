-- view: trend_points
-- definition: the HTML report's trend plots: every recorded value (report_history) of
--   seed 000's six metrics, cost per correct answer, pass rate and correct but not
--   grounded, per server and run, with the note recorded with it; the page marks the
--   tool changes between recordings on the time axis (trend_marks)
-- grain: (server, metric, recorded_at, run_id)
-- inputs: report_history
-- nulls: value is NULL when the metric had no denominator; such a point is not drawn
SELECT recorded_at, server, run_id, metric, value, note
FROM report_history
WHERE metric IN ('pass_rate', 'grounding_precision', 'grounding_recall',
  'definition_match_rate', 'freshness_pass_rate', 'policy_violation_rate',
  'clarification_loops_per_task', 'correct_not_grounded', 'cost_per_correct_answer_usd')
