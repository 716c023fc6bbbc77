-- report: drift_recent_changes
-- definition: "tools changed this week": per server and tool, the changes whose new
--   snapshot was captured in the 7 days (168 hours) up to that server's latest snapshot.
--   The week is measured from the data, not the clock, so the same snapshots always give
--   the same rows. worst is the most severe change (breaking > likely-breaking > warning
--   > review > compatible)
-- grain: (server, tool)
-- inputs: changes, tool_snapshots
-- nulls: none
WITH latest AS (
  SELECT server, max(captured_at) AS latest FROM tool_snapshots GROUP BY server
),
ranked AS (
  SELECT c.*, CASE c.severity WHEN 'breaking' THEN 1 WHEN 'likely-breaking' THEN 2
    WHEN 'warning' THEN 3 WHEN 'review' THEN 4 ELSE 5 END AS rank
  FROM changes c JOIN latest l ON l.server = c.server
  WHERE c.new_captured_at > l.latest - INTERVAL '7 days'
)
SELECT server, tool, count(*) AS changes, max(new_captured_at) AS last_changed,
  CASE min(rank) WHEN 1 THEN 'breaking' WHEN 2 THEN 'likely-breaking' WHEN 3 THEN 'warning'
    WHEN 4 THEN 'review' ELSE 'compatible' END AS worst,
  CAST(string_agg(DISTINCT rule, ', ' ORDER BY rule) AS VARCHAR) AS rules
FROM ranked
GROUP BY server, tool
