-- view: changes
-- definition: seed 002's diff between each pair of consecutive snapshots of a server in
--   tool_snapshots: one row per classified change (tool_changes; rules and their default
--   severity and action in drift_rules). A snapshot is every row of one server with one
--   captured_at; a tool missing from the next snapshot was removed. The CLI's
--   `groundcheck drift` applies overrides and ignore files; this view keeps the defaults.
-- grain: (server, new_captured_at, tool, path, rule, fingerprint)
-- inputs: tool_snapshots
-- nulls: before/after are NULL when absent on that side; a server's first snapshot has
--   nothing to compare with and gives no row; old_captured_at is never NULL
WITH snaps AS (
  SELECT server, captured_at,
    array_agg(named_struct(
      'tool', tool, 'title', title, 'description', description,
      'input_schema', input_schema, 'output_schema', output_schema,
      'annotations', annotations, 'version', version) ORDER BY tool) AS tools
  FROM tool_snapshots
  GROUP BY server, captured_at
),
pairs AS (
  SELECT server,
    lag(captured_at) OVER (PARTITION BY server ORDER BY captured_at) AS old_captured_at,
    captured_at AS new_captured_at,
    lag(tools) OVER (PARTITION BY server ORDER BY captured_at) AS old_tools,
    tools AS new_tools
  FROM snaps
),
exploded AS (
  SELECT server, old_captured_at, new_captured_at,
    unnest(tool_changes(old_tools, new_tools)) AS c
  FROM pairs
  WHERE old_captured_at IS NOT NULL
)
SELECT server, old_captured_at, new_captured_at,
  c['tool'] AS tool, c['rule'] AS rule, c['direction'] AS direction,
  c['severity'] AS severity, c['action'] AS action, c['path'] AS path,
  c['message'] AS message, c['before'] AS before, c['after'] AS after,
  c['fingerprint'] AS fingerprint
FROM exploded
