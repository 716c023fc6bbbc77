-- report: replay_summary
-- definition: per server and tool, how many recorded calls a candidate schema would
--   reject and why, in seed 002's terms ("37 of 1,204 recorded calls to search would
--   fail: 37 x unknown parameter 'query'"): the messages of queries/replay.sql counted
-- grain: (server, tool)
-- inputs: replay
-- nulls: reasons is NULL for a tool none of whose calls would fail
WITH counted AS (
  SELECT server, tool, message, count(*) AS n
  FROM (SELECT server, tool, unnest(violations) AS message FROM replay) AS m
  GROUP BY server, tool, message
),
reasons AS (
  SELECT server, tool, string_agg(CAST(n AS VARCHAR) || ' x ' || message, '; ' ORDER BY n DESC, message) AS reasons
  FROM counted GROUP BY server, tool
)
SELECT r.server, r.tool,
  count(*) AS calls,
  count(*) FILTER (WHERE cardinality(r.violations) > 0) AS failing,
  CAST(min(x.reasons) AS VARCHAR) AS reasons
FROM replay r
LEFT JOIN reasons x ON x.server = r.server AND x.tool = r.tool
GROUP BY r.server, r.tool
