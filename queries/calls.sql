-- view: calls
-- definition: each tool_call step joined to its tool_result: the step of the same run_id,
--   server, trace_id and call_id whose kind is tool_result
-- grain: (run_id, server, trace_id, call_id)
-- inputs: steps
-- nulls: result_step, result_ts, result, is_error and as_of are NULL for a call that got
--   no result
SELECT
  c.run_id, c.server, c.case_id, c.trace_id, c.step, c.ts AS call_ts, c.call_id, c.tool,
  c.arguments, c.as_user, c.credential_subject, c.model,
  r.step AS result_step, r.ts AS result_ts, r.result, r.is_error, r.as_of
FROM steps c
LEFT JOIN steps r
  ON r.kind = 'tool_result' AND r.run_id = c.run_id AND r.server = c.server
  AND r.trace_id = c.trace_id AND r.call_id = c.call_id
WHERE c.kind = 'tool_call'
