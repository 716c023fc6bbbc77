-- view: replay
-- definition: seed 002's evidence for a "likely breaking" change: every recorded tool
--   call checked (strictly, with validate_args) against a candidate schema of the same
--   server and tool (candidate_snapshots, the latest captured_at per tool), as if it had
--   been sent after the change
-- grain: (run_id, server, trace_id, call_id) for calls whose tool the candidate defines
-- inputs: calls, candidate_snapshots
-- nulls: violations is empty for a call the candidate accepts; calls to tools the
--   candidate does not define are not listed
WITH latest AS (
  SELECT s.*, row_number() OVER (PARTITION BY server, tool ORDER BY captured_at DESC) AS n
  FROM candidate_snapshots s
)
SELECT k.run_id, k.server, k.trace_id, k.call_id, k.tool,
  validate_args(coalesce(l.input_schema, '{}'), coalesce(k.arguments, '{}')) AS violations
FROM calls k
JOIN latest l ON l.server = k.server AND l.tool = k.tool AND l.n = 1
