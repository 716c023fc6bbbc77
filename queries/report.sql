-- report: report
-- definition: seed 000's report.json, one row per server under test and run, with
--   exactly its fields: cases; correct; correct_and_grounded; grounding_precision and
--   grounding_recall ("mean over tasks"); definition_match_rate ("tasks where every
--   business term resolved / tasks containing at least one business term");
--   freshness_pass_rate ("/ tasks with a freshness bound"); policy_violation_rate ("calls
--   that returned at least one row or column the as_user is not entitled to / all
--   calls"); clarification_loops_per_task ("turns in which the agent asked the user a
--   question instead of calling a tool / tasks"); cost_total_usd;
--   cost_per_correct_answer_usd ("total cost across all tasks / number of tasks answered
--   correctly and grounded"); failures_by_class (tasks by their failure_class);
--   needs_human_review (tasks). After the seed's fields, two it asks for in words:
--   pass_rate (correct / cases: the number a benchmark reports, equal for two servers
--   that differ in everything else) and correct_not_grounded (tasks correct and not
--   grounded: "Count how many were correct and not grounded", its what-to-do-tomorrow
--   number). Undecided tasks (NULL) count in no numerator but stay in
--   the denominators the seed names; correct_undecided ("tasks whose answer was never
--   given or could not be read: correct is NULL, never false") counts them, so an
--   imported trace without its final answer shows as unknown, not as wrong. Then, beside the seed's object (report.parquet and
--   the printed table, never report.json), the tool-call figures of the tasks whose case
--   has gold.expected_calls (task_tool_calls): tool_call_tasks, tool_calls_valid_rate
--   (BFCL's accuracy), the means of tool_selection_precision, tool_selection_recall,
--   argument_accuracy and tool_call_f1 over those tasks, and exact_sequence_rate; NULL
--   when no case has expected calls. A figure no task of the row is scored on (labels'
--   not_scored: a project without required fields, policies or a glossary) is NULL, not
--   0: correct_and_grounded, correct_not_grounded and cost_per_correct_answer_usd when no
--   task's grounding is scored, policy_violation_rate over the calls of tasks whose
--   policy is scored (NULL when none is); queries/not_scored.sql says which and why.
-- grain: (server, run_id)
-- inputs: labels
-- nulls: means and costs are rounded (12 and 10 decimals) so that the order of
--   floating-point sums cannot change the output; a rate is NULL when its denominator is 0; grounding means skip tasks whose value
--   is NULL; cost_per_correct_answer_usd is NULL when no task was correct and grounded
SELECT
  server,
  run_id,
  count(*) AS cases,
  count(*) FILTER (WHERE correct) AS correct,
  CASE WHEN bool_or(NOT array_has(not_scored, 'grounding')) THEN count(*) FILTER (WHERE correct AND grounded) END AS correct_and_grounded,
  round(avg(grounding_precision), 12) AS grounding_precision,
  round(avg(grounding_recall), 12) AS grounding_recall,
  CAST(count(*) FILTER (WHERE definition_match) AS DOUBLE) / nullif(count(*) FILTER (WHERE business_terms > 0), 0) AS definition_match_rate,
  CAST(count(*) FILTER (WHERE freshness_pass) AS DOUBLE) / nullif(count(*) FILTER (WHERE freshness_bound), 0) AS freshness_pass_rate,
  CAST(sum(policy_violations) AS DOUBLE) / nullif(sum(calls) FILTER (WHERE policy_violations IS NOT NULL), 0) AS policy_violation_rate,
  CAST(sum(clarification_turns) AS DOUBLE) / count(*) AS clarification_loops_per_task,
  round(sum(cost_usd), 10) AS cost_total_usd,
  CASE WHEN bool_or(NOT array_has(not_scored, 'grounding'))
    THEN round(sum(cost_usd) / nullif(count(*) FILTER (WHERE correct AND grounded), 0), 10) END AS cost_per_correct_answer_usd,
  named_struct(
    'entity', count(*) FILTER (WHERE failure_class = 'entity'),
    'semantic', count(*) FILTER (WHERE failure_class = 'semantic'),
    'structural', count(*) FILTER (WHERE failure_class = 'structural'),
    'temporal', count(*) FILTER (WHERE failure_class = 'temporal'),
    'policy', count(*) FILTER (WHERE failure_class = 'policy')
  ) AS failures_by_class,
  count(*) FILTER (WHERE needs_human_review) AS needs_human_review,
  CAST(count(*) FILTER (WHERE correct) AS DOUBLE) / count(*) AS pass_rate,
  CASE WHEN bool_or(NOT array_has(not_scored, 'grounding')) THEN count(*) FILTER (WHERE correct AND grounded = false) END AS correct_not_grounded,
  count(*) FILTER (WHERE correct IS NULL) AS correct_undecided,
  count(*) FILTER (WHERE tool_calls_valid IS NOT NULL OR tool_calls_reason IS NOT NULL) AS tool_call_tasks,
  CAST(count(*) FILTER (WHERE tool_calls_valid) AS DOUBLE)
    / nullif(count(*) FILTER (WHERE tool_calls_valid IS NOT NULL OR tool_calls_reason IS NOT NULL), 0) AS tool_calls_valid_rate,
  round(avg(tool_selection_precision), 12) AS tool_selection_precision,
  round(avg(tool_selection_recall), 12) AS tool_selection_recall,
  round(avg(argument_accuracy), 12) AS argument_accuracy,
  round(avg(tool_call_f1), 12) AS tool_call_f1,
  CAST(count(*) FILTER (WHERE exact_sequence) AS DOUBLE)
    / nullif(count(*) FILTER (WHERE exact_sequence IS NOT NULL), 0) AS exact_sequence_rate
FROM labels
GROUP BY server, run_id
