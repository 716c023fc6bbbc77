-- view: call_checks
-- definition: seed 002, "validate before calling": every recorded tool_call checked
--   against the tool's schema in effect at the call's time (the latest tool_snapshots row
--   of that server and tool captured at or before the call), strictly: parameters the
--   schema does not name are rejected, as the seed asks; and every result with an
--   outputSchema checked against it (not strictly: a result may carry more fields).
--   Messages follow the seed's form, "Schema mismatch: expected parameter
--   'search_query', found 'query'".
-- grain: (run_id, server, trace_id, call_id)
-- inputs: calls, tool_snapshots
-- nulls: snapshot_at is NULL when no snapshot of the tool precedes the call; then
--   argument_violations is NULL (nothing to check against); result_violations is NULL
--   when the tool has no outputSchema or the call no result
WITH candidates AS (
  SELECT c.run_id, c.server, c.trace_id, c.call_id, s.captured_at,
    row_number() OVER (PARTITION BY c.run_id, c.server, c.trace_id, c.call_id ORDER BY s.captured_at DESC) AS n
  FROM calls c
  JOIN tool_snapshots s ON s.server = c.server AND s.tool = c.tool AND s.captured_at <= c.call_ts
),
k AS (
  SELECT c.*, p.captured_at AS snapshot_at
  FROM calls c
  LEFT JOIN candidates p ON p.run_id = c.run_id AND p.server = c.server AND p.trace_id = c.trace_id
    AND p.call_id = c.call_id AND p.n = 1
)
SELECT k.run_id, k.server, k.case_id, k.trace_id, k.call_id, k.tool, k.snapshot_at,
  CASE WHEN s.input_schema IS NOT NULL THEN validate_args(s.input_schema, coalesce(k.arguments, '{}')) END AS argument_violations,
  CASE WHEN s.output_schema IS NOT NULL AND k.result IS NOT NULL AND NOT coalesce(k.is_error, false)
    THEN validate_args(s.output_schema, k.result, false) END AS result_violations
FROM k
LEFT JOIN tool_snapshots s ON s.server = k.server AND s.tool = k.tool AND s.captured_at = k.snapshot_at
