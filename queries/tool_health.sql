-- report: tool_health
-- definition: seed 002's runtime guards over time: per server, tool and window (an hour,
--   or a day), the calls that got a result, how many were errors and how many came back
--   empty, against a baseline of the tool's earlier healthy windows. The choices written
--   down: empty_rate is empty results / results that are not errors; error_rate errors /
--   results. The baseline is the mean of each rate over the tool's earlier windows that
--   were healthy, and a window is healthy when it has min_calls results and neither rate
--   is above the tool's median over all its windows by jump or more. So an outage never
--   enters the baseline: a day of empty results stays flagged all day (it would take an
--   outage longer than all the healthy history together to move the median). A window is
--   flagged when it has min_calls results, the baseline has min_baseline windows, and a
--   rate is above its baseline by jump or more: empty_spike, error_spike. Thresholds come
--   from anomaly_settings (`groundcheck anomalies` fills it), else window hour, min_calls
--   3, jump 0.5, min_baseline 3.
-- grain: (server, tool, window_start)
-- inputs: calls, anomaly_settings
-- nulls: empty_rate is NULL for a window of errors only; baseline_* are NULL before the
--   tool has a healthy window; calls without a result time are left out
WITH s AS (
  SELECT coalesce(max(window_unit), 'hour') AS unit, coalesce(max(min_calls), 3) AS min_calls,
    coalesce(max(jump), 0.5) AS jump, coalesce(max(min_baseline), 3) AS min_baseline
  FROM anomaly_settings
),
r AS (
  SELECT server, tool,
    CASE WHEN (SELECT unit FROM s) = 'day' THEN date_trunc('day', result_ts) ELSE date_trunc('hour', result_ts) END AS window_start,
    coalesce(is_error, false) AS is_error,
    result_rows(result) AS rows
  FROM calls
  WHERE result IS NOT NULL AND result_ts IS NOT NULL
),
win AS (
  SELECT server, tool, window_start, count(*) AS calls,
    count(*) FILTER (WHERE is_error) AS errors,
    count(*) FILTER (WHERE NOT is_error AND rows = 0) AS empty
  FROM r GROUP BY server, tool, window_start
),
rates AS (
  SELECT win.*,
    CAST(empty AS DOUBLE) / nullif(calls - errors, 0) AS empty_rate,
    CAST(errors AS DOUBLE) / calls AS error_rate
  FROM win
),
med AS (
  SELECT rates.*,
    median(coalesce(empty_rate, 0.0)) OVER (PARTITION BY server, tool) AS median_empty,
    median(error_rate) OVER (PARTITION BY server, tool) AS median_error
  FROM rates
),
healthy AS (
  SELECT med.*,
    calls >= (SELECT min_calls FROM s)
      AND coalesce(empty_rate, 0.0) < median_empty + (SELECT jump FROM s)
      AND error_rate < median_error + (SELECT jump FROM s) AS healthy
  FROM med
),
base AS (
  SELECT healthy.*,
    count(*) FILTER (WHERE healthy) OVER (PARTITION BY server, tool ORDER BY window_start
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS baseline_windows,
    avg(coalesce(empty_rate, 0.0)) FILTER (WHERE healthy) OVER (PARTITION BY server, tool ORDER BY window_start
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS baseline_empty_rate,
    avg(error_rate) FILTER (WHERE healthy) OVER (PARTITION BY server, tool ORDER BY window_start
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS baseline_error_rate
  FROM healthy
)
SELECT server, tool, window_start, calls, errors, empty,
  round(empty_rate, 6) AS empty_rate, round(error_rate, 6) AS error_rate,
  baseline_windows, round(baseline_empty_rate, 6) AS baseline_empty_rate, round(baseline_error_rate, 6) AS baseline_error_rate,
  coalesce(calls >= (SELECT min_calls FROM s) AND baseline_windows >= (SELECT min_baseline FROM s)
    AND empty_rate - baseline_empty_rate >= (SELECT jump FROM s), false) AS empty_spike,
  coalesce(calls >= (SELECT min_calls FROM s) AND baseline_windows >= (SELECT min_baseline FROM s)
    AND error_rate - baseline_error_rate >= (SELECT jump FROM s), false) AS error_spike
FROM base
