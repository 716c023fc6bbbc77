-- metric: trace_clarifications
-- definition: seed 000, clarification loops: "turns in which the agent asked the user a
--   question instead of calling a tool". Per trace, a turn is a clarification step, or
--   (as imported traces have it, where no producer marks a question) an assistant
--   message that the user's next message answers with no tool call between (reasoning
--   steps aside). The seed's report divides their sum by tasks
--   (clarification_loops_per_task, queries/report.sql); `sample` stratifies traces with
--   any (queries/trace_outcomes.sql). The seed also asks to oversample them: that is where
--   grounding failures hide, because the agent usually recovers.
-- grain: (run_id, server, trace_id)
-- inputs: steps
-- nulls: case_id is NULL for a production trace tied to no case; clarification_turns is
--   never NULL (0 when the agent asked nothing)
WITH turns AS (
  SELECT run_id, server, trace_id, case_id, kind,
    lead(kind) OVER (PARTITION BY run_id, server, trace_id ORDER BY step) AS next_kind
  FROM steps WHERE kind <> 'reasoning'
)
SELECT run_id, server, trace_id, max(case_id) AS case_id,
  count(*) FILTER (WHERE kind = 'clarification' OR (kind = 'assistant' AND next_kind = 'user')) AS clarification_turns
FROM turns
GROUP BY run_id, server, trace_id
