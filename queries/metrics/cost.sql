-- metric: task_cost
-- definition: seed 000, cost "includes every token (input and output, priced at the
--   model's rate), every tool execution, every retry, and every clarification turn". Per
--   step: the USD the client reported, else its tokens at the model's per-million rates
--   from pricing; plus, per tool_call, the tool's per-call price (the server's own price,
--   else the tool's price on any server). Retries and clarification turns are steps, so
--   they are counted as such (the count of clarification turns is
--   queries/metrics/clarification.sql).
-- grain: (run_id, server, case_id)
-- inputs: steps, pricing, tasks
-- nulls: cost_usd (rounded to 1e-10 USD, so that the order floating-point sums run in
--   cannot change a byte of the output) is NULL when there is nothing to go by (no
--   reported USD, no priced token or tool, no case cost block: cost_source none; labels
--   then list 'cost' in not_scored, issue #50: an unknown cost is not a free task);
--   unpriced_models lists models whose tokens had no price and no reported USD
--   (their tokens are not in cost_usd)
WITH priced AS (
  SELECT s.run_id, s.server, s.case_id, s.kind, s.model, s.usd,
    coalesce(s.input_tokens, 0) + coalesce(s.output_tokens, 0) AS tokens,
    coalesce(
      s.usd,
      (coalesce(s.input_tokens, 0) * pm.usd_per_million_input + coalesce(s.output_tokens, 0) * pm.usd_per_million_output) / 1000000.0
    ) AS token_usd,
    CASE WHEN s.kind = 'tool_call' THEN coalesce(pts.usd_per_call, pta.usd_per_call, 0.0) ELSE 0.0 END AS tool_usd
  FROM steps s
  LEFT JOIN pricing pm ON pm.kind = 'model' AND pm.name = s.model
  LEFT JOIN pricing pts ON pts.kind = 'tool' AND pts.name = s.tool AND pts.server = s.server
  LEFT JOIN pricing pta ON pta.kind = 'tool' AND pta.name = s.tool AND pta.server IS NULL
  WHERE s.case_id IS NOT NULL
),
per_task AS (
  SELECT run_id, server, case_id,
    round(sum(coalesce(token_usd, 0.0)) + sum(tool_usd), 10) AS trace_usd,
    bool_or(usd IS NOT NULL) AS reported,
    bool_or((usd IS NULL AND token_usd IS NOT NULL AND tokens > 0) OR tool_usd > 0) AS priced,
    sum(tokens) AS tokens,
    count(*) FILTER (WHERE kind = 'tool_call') AS tool_calls,
    coalesce(array_sort(array_distinct(array_agg(model) FILTER (WHERE token_usd IS NULL AND tokens > 0))), CAST([] AS VARCHAR[])) AS unpriced_models
  FROM priced
  GROUP BY run_id, server, case_id
)
SELECT p.run_id, p.server, p.case_id,
  CASE
    WHEN p.reported OR p.priced THEN p.trace_usd
    WHEN t.is_source_trace AND t.case_usd IS NOT NULL THEN round(t.case_usd, 10)
  END AS cost_usd,
  CASE
    WHEN p.reported AND p.priced THEN 'reported+priced'
    WHEN p.reported THEN 'reported'
    WHEN p.priced THEN 'priced'
    WHEN t.is_source_trace AND t.case_usd IS NOT NULL THEN 'case'
    ELSE 'none'
  END AS cost_source,
  p.tokens, p.tool_calls, p.unpriced_models
FROM per_task p
-- The case's cost block and whether the task ran its source trace, once per task (tasks
-- has both) rather than a join of every step to cases.
JOIN (
  SELECT run_id, server, case_id, coalesce(is_source_trace, false) AS is_source_trace,
    recorded_cost['usd'] AS case_usd
  FROM tasks
) t ON t.run_id = p.run_id AND t.server = p.server AND t.case_id = p.case_id
