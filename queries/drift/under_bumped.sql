-- report: drift_under_bumped
-- definition: seed 002's semver rules checked against the versions tools declare: the
--   changes of a tool between two snapshots need the largest bump any of them needs
--   (semver_needed, the one rule: major for breaking or likely breaking, else minor;
--   description-only changes are "MINOR at minimum");
--   a row is listed when the declared bump (semver_bump, 0.y.z read as Cargo does) is
--   smaller than needed, or the version went backwards
-- grain: (server, new_captured_at, tool)
-- inputs: changes, tool_snapshots
-- nulls: tools without a declared version on both sides, and renamed tools (no old
--   version under the new name), are not judged and not listed
WITH need AS (
  SELECT server, old_captured_at, new_captured_at, tool,
    max(CASE semver_needed(severity) WHEN 'major' THEN 3 ELSE 2 END) AS need_rank,
    CAST(string_agg(DISTINCT rule, ', ' ORDER BY rule) AS VARCHAR) AS rules
  FROM changes
  GROUP BY server, old_captured_at, new_captured_at, tool
),
judged AS (
  SELECT n.*, o.version AS old_version, v.version AS new_version,
    semver_bump(o.version, v.version) AS declared
  FROM need n
  JOIN tool_snapshots o ON o.server = n.server AND o.captured_at = n.old_captured_at AND o.tool = n.tool
  JOIN tool_snapshots v ON v.server = n.server AND v.captured_at = n.new_captured_at AND v.tool = n.tool
  WHERE o.version IS NOT NULL AND v.version IS NOT NULL
)
SELECT server, tool, old_captured_at, new_captured_at, old_version, new_version,
  declared,
  CASE need_rank WHEN 3 THEN 'major' ELSE 'minor' END AS needed,
  rules
FROM judged
WHERE declared IS NULL OR declared = 'backwards'
  OR CASE declared WHEN 'major' THEN 3 WHEN 'minor' THEN 2 WHEN 'patch' THEN 1 ELSE 0 END < need_rank
