-- metric: task_tool_calls
-- definition: tool-call correctness, for the tasks whose case lists gold.expected_calls
--   (our extension of seed 000's gold, docs/tool-calls.md; the seed places these metrics
--   "one level above" its failure taxonomy). calls_match compares the task's tool calls,
--   in step order, with the expected calls, by gold.argument_match (bfcl: the rules of the
--   Berkeley Function Calling Leaderboard's AST checker, the default; strict: exact) and
--   gold.call_order (any, the default, or strict). Per task:
--   tool_calls_valid: BFCL's verdict (as many calls as expected, each expected call
--   matched by its own call); tool_calls_reason: the first reason it is not;
--   tool_selection_precision / recall (Future AGI's tool selection, DeepEval's
--   ToolCorrectness on names): expected calls paired one to one with a call of the same
--   tool / calls made, / expected calls; argument_accuracy: of those pairs by tool, the
--   share whose arguments are all acceptable (pairs by whole call / pairs by tool);
--   tool_call_f1 (Ragas's ToolCallF1): F1 of whole-call pairs over calls made and calls
--   expected, 2 m / (made + expected), and 1.0 when none was expected and none made;
--   exact_sequence: the calls are the expected calls, one for one, in order;
--   forbidden_tool_calls: calls to a tool in gold.forbidden_tools.
-- grain: (run_id, server, case_id)
-- inputs: steps, cases
-- nulls: ratios are rounded to 12 decimals (as the report's means); precision is NULL when no call was made, recall when none was expected,
--   argument_accuracy when no call was of an expected tool; tool_calls_valid is NULL (and
--   tool_calls_reason says why) when the expected calls cannot be read
WITH expected AS (
  SELECT case_id, gold['expected_calls'] AS expected_calls,
    coalesce(gold['call_order'], 'any') AS call_order,
    coalesce(gold['argument_match'], 'bfcl') AS argument_match,
    coalesce(gold['forbidden_tools'], CAST([] AS VARCHAR[])) AS forbidden_tools
  FROM cases WHERE gold['expected_calls'] IS NOT NULL
),
made AS (
  SELECT s.run_id, s.server, s.case_id,
    array_agg(named_struct('tool', s.tool, 'arguments', s.arguments) ORDER BY s.step)
      FILTER (WHERE s.kind = 'tool_call') AS calls,
    count(*) FILTER (WHERE s.kind = 'tool_call' AND array_has(e.forbidden_tools, s.tool)) AS forbidden_tool_calls
  FROM steps s JOIN expected e ON e.case_id = s.case_id
  GROUP BY s.run_id, s.server, s.case_id
),
matched AS (
  SELECT m.run_id, m.server, m.case_id, m.forbidden_tool_calls,
    calls_match(m.calls, e.expected_calls, e.call_order, e.argument_match) AS v
  FROM made m JOIN expected e ON e.case_id = m.case_id
)
SELECT run_id, server, case_id,
  v['valid'] AS tool_calls_valid,
  v['reason'] AS tool_calls_reason,
  v['expected'] AS expected_calls,
  v['actual'] AS actual_calls,
  round(CAST(v['tools_matched'] AS DOUBLE) / nullif(v['actual'], 0), 12) AS tool_selection_precision,
  round(CAST(v['tools_matched'] AS DOUBLE) / nullif(v['expected'], 0), 12) AS tool_selection_recall,
  round(CAST(v['calls_matched'] AS DOUBLE) / nullif(v['tools_matched'], 0), 12) AS argument_accuracy,
  CASE WHEN v['expected'] = 0 AND v['actual'] = 0 THEN 1.0
       ELSE round(2.0 * v['calls_matched'] / (v['actual'] + v['expected']), 12) END AS tool_call_f1,
  v['in_sequence'] AS exact_sequence,
  forbidden_tool_calls
FROM matched
