-- view: latest_tools
-- definition: each server's tools as its latest snapshot lists them: the tool_snapshots
--   rows at the server's latest captured_at (what tool_lineage infers lineage from and
--   what suite impact compares an older project's tools with)
-- grain: (server, tool)
-- inputs: tool_snapshots
-- nulls: as tool_snapshots
SELECT s.*
FROM tool_snapshots s
WHERE s.captured_at = (SELECT max(x.captured_at) FROM tool_snapshots x WHERE x.server = s.server)
