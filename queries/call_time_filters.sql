-- view: call_time_filters
-- definition: the time window each SQL-running call applies: one row per column its
--   filters bound by a date, a timestamp or a relative time expression, with the tightest
--   bounds (sql_time_filters), for the temporal checks of seed 000 ("a date filter on a
--   column other than the one the metric definition names", "a window computed ...")
-- grain: one row per (run_id, server, trace_id, call_id, field)
-- inputs: call_fields, catalog_entries
-- nulls: lower or upper is NULL when the query bounds the column on one side only;
--   calls whose result is an error, or whose SQL cannot be parsed, have no rows
SELECT run_id, server, case_id, trace_id, call_id,
  lower(tf['field']) AS field,
  tf['lower'] AS lower, tf['lower_inclusive'] AS lower_inclusive,
  tf['upper'] AS upper, tf['upper_inclusive'] AS upper_inclusive
FROM (
  SELECT run_id, server, case_id, trace_id, call_id,
    unnest(sql_time_filters(sql, coalesce(dialect, 'generic'), (SELECT entries FROM catalog_entries))) AS tf
  FROM call_fields WHERE sql IS NOT NULL AND NOT is_error
) AS f
