-- view: trend_marks
-- definition: the tool changes the HTML report marks on its trend plots' time axis: per
--   server and snapshot time (the changes view's new_captured_at), how many changes of
--   each severity were captured and which (`tool: rule`, in order), for the servers that
--   have a report_history
-- grain: (server, captured_at)
-- inputs: changes, report_history
-- nulls: none
SELECT c.server, c.new_captured_at AS captured_at,
  count(*) AS changes,
  count(*) FILTER (WHERE c.severity = 'breaking') AS breaking,
  CAST(string_agg(DISTINCT c.tool || ': ' || c.rule, '; ' ORDER BY c.tool || ': ' || c.rule) AS VARCHAR) AS what
FROM changes c
WHERE c.server IN (SELECT DISTINCT server FROM report_history)
GROUP BY c.server, c.new_captured_at
