-- report: response_anomalies
-- definition: seed 002's runtime guards over recorded tool results, per server and tool
--   in call order (result time, then trace and call id): shape_changed (result_shape is
--   not the previous non-empty result's; an empty result has no shape, so a tool that
--   sometimes finds nothing does not flap), rows_z and bytes_z (z-score of the result's rows and
--   size against the tool's previous 10 results; needs at least 5 of them and a spread
--   above zero), suddenly_empty (0 rows where the previous results averaged more). A call
--   is listed when a guard fires: shape changed, |z| >= 3, or suddenly empty. Error
--   results are left out (their shape is the error's). The window (10 calls) is fixed
--   here; the threshold is anomaly_settings.z (`groundcheck anomalies --z`, default 3).
--   suddenly_empty says when an outage began, not how long it lasted: after 10 empty
--   calls the window holds only empties. For outages over time, tool_health
--   (queries/tool_health.sql) keeps its baseline out of the outage
-- grain: (run_id, server, trace_id, call_id)
-- inputs: calls, anomaly_settings
-- nulls: shape is NULL for an empty result, prev_shape before a tool's first non-empty one; rows_z and bytes_z are NULL with
--   fewer than 5 earlier results or no spread
WITH r AS (
  SELECT run_id, server, tool, trace_id, call_id, result_ts AS ts,
    CASE WHEN result_rows(result) > 0 THEN result_shape(result) END AS shape,
    result_rows(result) AS rows,
    CAST(octet_length(result) AS BIGINT) AS bytes
  FROM calls
  WHERE result IS NOT NULL AND coalesce(is_error, false) = false
),
w AS (
  SELECT r.*,
    last_value(shape) IGNORE NULLS OVER (PARTITION BY server, tool ORDER BY ts, trace_id, call_id
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_shape,
    count(*) OVER (PARTITION BY server, tool ORDER BY ts, trace_id, call_id
      ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) AS n,
    avg(rows) OVER (PARTITION BY server, tool ORDER BY ts, trace_id, call_id
      ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) AS mean_rows,
    stddev_samp(rows) OVER (PARTITION BY server, tool ORDER BY ts, trace_id, call_id
      ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) AS sd_rows,
    avg(bytes) OVER (PARTITION BY server, tool ORDER BY ts, trace_id, call_id
      ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) AS mean_bytes,
    stddev_samp(bytes) OVER (PARTITION BY server, tool ORDER BY ts, trace_id, call_id
      ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) AS sd_bytes
  FROM r
),
z AS (
  SELECT w.*,
    coalesce(prev_shape <> shape, false) AS shape_changed,
    CASE WHEN n >= 5 AND sd_rows > 0 THEN round((rows - mean_rows) / sd_rows, 6) END AS rows_z,
    CASE WHEN n >= 5 AND sd_bytes > 0 THEN round((bytes - mean_bytes) / sd_bytes, 6) END AS bytes_z,
    (rows = 0 AND coalesce(mean_rows, 0) > 0) AS suddenly_empty
  FROM w
)
SELECT run_id, server, tool, trace_id, call_id, ts, shape, prev_shape, rows, bytes,
  shape_changed, rows_z, bytes_z, suddenly_empty
FROM z
WHERE shape_changed OR suddenly_empty
  OR abs(rows_z) >= (SELECT coalesce(max(z), 3.0) FROM anomaly_settings)
  OR abs(bytes_z) >= (SELECT coalesce(max(z), 3.0) FROM anomaly_settings)
