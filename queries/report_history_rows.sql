-- report: report_history_rows
-- definition: a report in long form, the rows `report --history` appends to report_history:
--   one per server, run and metric; position is the metric's place in the report's column
--   order (failures_by_class as failures_by_class.CLASS). Our choices: a metric whose value is NULL (no denominator) is
--   not recorded, so a trend never moves to or from "nothing measured"; the tool-call
--   figures are recorded only where some case has expected calls (tool_call_tasks > 0), as
--   the report table shows them
-- grain: (server, run_id, metric)
-- inputs: report
-- nulls: none; rows whose value would be NULL are left out; order by server, run_id,
--   position
WITH wide AS (
  SELECT server, run_id, coalesce(tool_call_tasks, 0) > 0 AS tool_calls, [
    named_struct('n', 1, 'metric', 'cases', 'value', CAST(cases AS DOUBLE), 'tool_call', false),
    named_struct('n', 2, 'metric', 'correct', 'value', CAST(correct AS DOUBLE), 'tool_call', false),
    named_struct('n', 3, 'metric', 'correct_and_grounded', 'value', CAST(correct_and_grounded AS DOUBLE), 'tool_call', false),
    named_struct('n', 4, 'metric', 'grounding_precision', 'value', CAST(grounding_precision AS DOUBLE), 'tool_call', false),
    named_struct('n', 5, 'metric', 'grounding_recall', 'value', CAST(grounding_recall AS DOUBLE), 'tool_call', false),
    named_struct('n', 6, 'metric', 'definition_match_rate', 'value', CAST(definition_match_rate AS DOUBLE), 'tool_call', false),
    named_struct('n', 7, 'metric', 'freshness_pass_rate', 'value', CAST(freshness_pass_rate AS DOUBLE), 'tool_call', false),
    named_struct('n', 8, 'metric', 'policy_violation_rate', 'value', CAST(policy_violation_rate AS DOUBLE), 'tool_call', false),
    named_struct('n', 9, 'metric', 'clarification_loops_per_task', 'value', CAST(clarification_loops_per_task AS DOUBLE), 'tool_call', false),
    named_struct('n', 10, 'metric', 'cost_total_usd', 'value', CAST(cost_total_usd AS DOUBLE), 'tool_call', false),
    named_struct('n', 11, 'metric', 'cost_per_correct_answer_usd', 'value', CAST(cost_per_correct_answer_usd AS DOUBLE), 'tool_call', false),
    named_struct('n', 12, 'metric', 'failures_by_class.entity', 'value', CAST(failures_by_class['entity'] AS DOUBLE), 'tool_call', false),
    named_struct('n', 13, 'metric', 'failures_by_class.semantic', 'value', CAST(failures_by_class['semantic'] AS DOUBLE), 'tool_call', false),
    named_struct('n', 14, 'metric', 'failures_by_class.structural', 'value', CAST(failures_by_class['structural'] AS DOUBLE), 'tool_call', false),
    named_struct('n', 15, 'metric', 'failures_by_class.temporal', 'value', CAST(failures_by_class['temporal'] AS DOUBLE), 'tool_call', false),
    named_struct('n', 16, 'metric', 'failures_by_class.policy', 'value', CAST(failures_by_class['policy'] AS DOUBLE), 'tool_call', false),
    named_struct('n', 17, 'metric', 'needs_human_review', 'value', CAST(needs_human_review AS DOUBLE), 'tool_call', false),
    named_struct('n', 18, 'metric', 'pass_rate', 'value', CAST(pass_rate AS DOUBLE), 'tool_call', false),
    named_struct('n', 19, 'metric', 'correct_not_grounded', 'value', CAST(correct_not_grounded AS DOUBLE), 'tool_call', false),
    named_struct('n', 20, 'metric', 'tool_call_tasks', 'value', CAST(tool_call_tasks AS DOUBLE), 'tool_call', true),
    named_struct('n', 21, 'metric', 'tool_calls_valid_rate', 'value', CAST(tool_calls_valid_rate AS DOUBLE), 'tool_call', true),
    named_struct('n', 22, 'metric', 'tool_selection_precision', 'value', CAST(tool_selection_precision AS DOUBLE), 'tool_call', true),
    named_struct('n', 23, 'metric', 'tool_selection_recall', 'value', CAST(tool_selection_recall AS DOUBLE), 'tool_call', true),
    named_struct('n', 24, 'metric', 'argument_accuracy', 'value', CAST(argument_accuracy AS DOUBLE), 'tool_call', true),
    named_struct('n', 25, 'metric', 'tool_call_f1', 'value', CAST(tool_call_f1 AS DOUBLE), 'tool_call', true),
    named_struct('n', 26, 'metric', 'exact_sequence_rate', 'value', CAST(exact_sequence_rate AS DOUBLE), 'tool_call', true)
  ] AS metrics
  FROM report
),
long AS (SELECT server, run_id, tool_calls, unnest(metrics) AS m FROM wide)
SELECT server, run_id, m['n'] AS position, m['metric'] AS metric, m['value'] AS value
FROM long
WHERE m['value'] IS NOT NULL AND (tool_calls OR NOT m['tool_call'])
ORDER BY server, run_id, m['n']
