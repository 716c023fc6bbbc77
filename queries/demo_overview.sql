-- report: demo_overview
-- definition: per server and run, how many traces, tool calls, tokens and results
--   without an as_of the run holds; a first look at a project, not a seed metric
-- grain: (run_id, server)
-- inputs: steps
-- nulls: input_tokens and output_tokens sum only the events that report them
SELECT
  run_id,
  server,
  count(DISTINCT trace_id) AS traces,
  count(*) FILTER (WHERE kind = 'tool_call') AS tool_calls,
  count(*) FILTER (WHERE kind = 'tool_result' AND as_of IS NULL) AS results_without_as_of,
  sum(input_tokens) AS input_tokens,
  sum(output_tokens) AS output_tokens
FROM steps
GROUP BY run_id, server
ORDER BY run_id, server;
