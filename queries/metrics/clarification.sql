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
WITH per_trace AS (
  SELECT run_id, server, trace_id, max(case_id) AS case_id,
    count(*) FILTER (WHERE kind = 'clarification') AS marked,
    bool_or(kind = 'assistant') AS has_assistant
  FROM steps GROUP BY run_id, server, trace_id
),
-- The step-after-step look only where an assistant message can ask (a sort of those
-- traces' steps, not of every step).
turns AS (
  SELECT s.run_id, s.server, s.trace_id, s.kind,
    lead(s.kind) OVER (PARTITION BY s.run_id, s.server, s.trace_id ORDER BY s.step) AS next_kind
  FROM steps s
  JOIN per_trace p ON p.run_id = s.run_id AND p.server = s.server AND p.trace_id = s.trace_id AND p.has_assistant
  WHERE s.kind <> 'reasoning'
),
asked AS (
  SELECT run_id, server, trace_id, count(*) AS unmarked
  FROM turns WHERE kind = 'assistant' AND next_kind = 'user'
  GROUP BY run_id, server, trace_id
)
SELECT p.run_id, p.server, p.trace_id, p.case_id, p.marked + coalesce(a.unmarked, 0) AS clarification_turns
FROM per_trace p
LEFT JOIN asked a ON a.run_id = p.run_id AND a.server = p.server AND a.trace_id = p.trace_id
