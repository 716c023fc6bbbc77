-- report: metric_trends
-- definition: "which metric moved, when, after which change", in one query: each metric
--   of report_history per server, in recording order, with its previous value, the
--   delta, the note recorded with it, and the tool changes (the changes view) captured
--   for that server after the previous recording and up to this one. A row is listed when
--   the value moved (differs from the previous recording's, NULL included); a server's
--   first recording of a metric only sets the base line
-- grain: (server, metric, recorded_at)
-- inputs: report_history, changes
-- nulls: tool_changes is NULL when no snapshot change falls between the two recordings;
--   note is NULL when none was recorded; delta is NULL when either value is
WITH h AS (
  SELECT recorded_at, server, run_id, metric, value, note,
    lag(value) OVER (PARTITION BY server, metric ORDER BY recorded_at, run_id) AS before,
    lag(recorded_at) OVER (PARTITION BY server, metric ORDER BY recorded_at, run_id) AS before_at
  FROM report_history
),
moved AS (
  SELECT * FROM h
  WHERE before_at IS NOT NULL AND (value IS DISTINCT FROM before)
),
between_changes AS (
  SELECT m.server, m.metric, m.recorded_at,
    CAST(string_agg(DISTINCT c.tool || ': ' || c.rule, '; ' ORDER BY c.tool || ': ' || c.rule) AS VARCHAR) AS tool_changes
  FROM moved m
  JOIN changes c ON c.server = m.server
    AND c.new_captured_at > m.before_at AND c.new_captured_at <= m.recorded_at
  GROUP BY m.server, m.metric, m.recorded_at
)
SELECT m.server, m.metric, m.before_at, m.recorded_at, m.run_id, m.before, m.value,
  round(m.value - m.before, 12) AS delta, m.note, b.tool_changes
FROM moved m
LEFT JOIN between_changes b
  ON b.server = m.server AND b.metric = m.metric AND b.recorded_at = m.recorded_at
