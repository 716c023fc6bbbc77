-- report: drift_breaking_by_server
-- definition: per server and snapshot pair, how many changes are breaking or likely
--   breaking (seed 002: both block by default), how many tools they touch, and which
--   rules fired; pairs whose changes are all warnings, reviews or compatible are listed
--   with zero counts so that "nothing breaking" is visible too
-- grain: (server, new_captured_at), one row per snapshot pair with at least one change
-- inputs: changes
-- nulls: breaking_rules is NULL when nothing breaking changed
SELECT server, old_captured_at, new_captured_at,
  count(*) FILTER (WHERE severity = 'breaking') AS breaking,
  count(*) FILTER (WHERE severity = 'likely-breaking') AS likely_breaking,
  count(*) AS changes,
  count(DISTINCT tool) FILTER (WHERE severity IN ('breaking', 'likely-breaking')) AS tools_affected,
  CAST(string_agg(DISTINCT CASE WHEN severity IN ('breaking', 'likely-breaking') THEN rule END, ', '
    ORDER BY CASE WHEN severity IN ('breaking', 'likely-breaking') THEN rule END) AS VARCHAR) AS breaking_rules
FROM changes
GROUP BY server, old_captured_at, new_captured_at
