-- metric: task_cost
-- definition: seed 000, cost "includes every token (input and output, priced at the
--   model's rate), every tool execution, every retry, and every clarification turn". Per
--   step: the USD the client reported, else its tokens at the model's per-million rates
--   from pricing; plus, per tool_call, the tool's per-call price (the server's own price,
--   else the tool's price on any server). Retries and clarification turns are steps, so
--   they are counted as such.
-- grain: (run_id, server, case_id)
-- inputs: steps, pricing
-- nulls: cost_usd (rounded to 1e-10 USD, so that the order floating-point sums run in
--   cannot change a byte of the output) is never NULL (no priced step: 0); unpriced_models lists models whose
--   tokens had no price and no reported USD (their tokens are not in cost_usd)
WITH priced AS (
  SELECT s.run_id, s.server, s.case_id, s.kind, s.model,
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
)
SELECT run_id, server, case_id,
  round(sum(coalesce(token_usd, 0.0)) + sum(tool_usd), 10) AS cost_usd,
  sum(tokens) AS tokens,
  count(*) FILTER (WHERE kind = 'tool_call') AS tool_calls,
  count(*) FILTER (WHERE kind = 'clarification') AS clarification_turns,
  coalesce(array_sort(array_distinct(array_agg(model) FILTER (WHERE token_usd IS NULL AND tokens > 0))), CAST([] AS VARCHAR[])) AS unpriced_models
FROM priced
GROUP BY run_id, server, case_id
