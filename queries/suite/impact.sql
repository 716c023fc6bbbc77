-- view: case_impact
-- definition: the cases a change of context or tools touches, so a rerun can start with
--   them (seed 000: rerun the suite on every change). Compares the current catalog,
--   glossary, policies and tool_snapshots with an older version registered as
--   old_catalog, old_glossary, old_policies and old_tool_snapshots (`groundcheck suite
--   impact --old DIR` fills them; with none filled the view is empty). A catalog column
--   added, removed, or changed in type, key, reference, unit or description (the text a
--   tool or a model reads to choose a column) touches the cases whose gold names it
--   (required or forbidden fields, schema.table.column or table.column) and the cases
--   whose traces read it (call_fields of calls that did not fail), so a case is rerun
--   when what its agent actually did depends on the column, not only what it should do. A glossary term
--   added, removed, or changed in definition, predicate, time column or tools touches the
--   cases whose question mentions it (case-insensitive) or whose gold.definition is its
--   old or new definition. A policy row added or removed (rows compared whole) touches the
--   cases it applies to: its as_user's when set, else every case of its role. A
--   tool with any change between the latest old and new snapshot of its server
--   (tool_changes) touches the cases whose required fields start with `tool.`, whose
--   traces called it on that server, or whose glossary term names it in tools
-- grain: (case_id)
-- inputs: cases, catalog, glossary, policies, latest_tools, old_catalog, old_glossary,
--   old_policies, old_tool_snapshots, calls, call_fields
-- nulls: none
WITH given AS (
  SELECT (SELECT count(*) FROM old_catalog) + (SELECT count(*) FROM old_glossary)
    + (SELECT count(*) FROM old_policies) + (SELECT count(*) FROM old_tool_snapshots) > 0 AS yes
),
cat AS (
  SELECT CASE WHEN o.column_name IS NULL THEN 'added' WHEN n.column_name IS NULL THEN 'removed' ELSE 'changed' END AS how,
    coalesce(n.schema_name, o.schema_name) AS schema_name,
    coalesce(n.table_name, o.table_name) AS table_name,
    coalesce(n.column_name, o.column_name) AS column_name
  FROM catalog n
  FULL OUTER JOIN old_catalog o ON (n.schema_name IS NOT DISTINCT FROM o.schema_name)
    AND n.table_name = o.table_name AND n.column_name = o.column_name
  WHERE o.column_name IS NULL OR n.column_name IS NULL
    OR (n.data_type IS DISTINCT FROM o.data_type) OR (n.is_primary_key IS DISTINCT FROM o.is_primary_key)
    OR (n.foreign_key_to IS DISTINCT FROM o.foreign_key_to) OR (n.unit IS DISTINCT FROM o.unit)
    OR (n.description IS DISTINCT FROM o.description)
),
terms AS (
  SELECT CASE WHEN o.term IS NULL THEN 'added' WHEN n.term IS NULL THEN 'removed' ELSE 'changed' END AS how,
    coalesce(n.term, o.term) AS term, n.definition AS new_definition, o.definition AS old_definition,
    coalesce(n.tools, o.tools) AS tools
  FROM glossary n FULL OUTER JOIN old_glossary o ON n.term = o.term
  WHERE o.term IS NULL OR n.term IS NULL OR (n.definition IS DISTINCT FROM o.definition)
    OR (n.predicate IS DISTINCT FROM o.predicate) OR (n.time_column IS DISTINCT FROM o.time_column)
    OR (n.tools IS DISTINCT FROM o.tools)
),
pol AS (
  SELECT 'added' AS how, * FROM (SELECT * FROM policies EXCEPT SELECT * FROM old_policies) AS a
  UNION ALL
  SELECT 'removed' AS how, * FROM (SELECT * FROM old_policies EXCEPT SELECT * FROM policies) AS r
),
latest_new AS (
  SELECT server, array_agg(named_struct('tool', tool, 'title', title, 'description', description,
    'input_schema', input_schema, 'output_schema', output_schema, 'annotations', annotations,
    'version', version) ORDER BY tool) AS tools
  FROM latest_tools
  GROUP BY server
),
latest_old AS (
  SELECT server, array_agg(named_struct('tool', tool, 'title', title, 'description', description,
    'input_schema', input_schema, 'output_schema', output_schema, 'annotations', annotations,
    'version', version) ORDER BY tool) AS tools
  FROM old_tool_snapshots s
  WHERE captured_at = (SELECT max(captured_at) FROM old_tool_snapshots x WHERE x.server = s.server)
  GROUP BY server
),
tool_diff AS (
  SELECT coalesce(n.server, o.server) AS srv,
    unnest(tool_changes(coalesce(o.tools, []), coalesce(n.tools, []))) AS c
  FROM latest_new n FULL OUTER JOIN latest_old o ON n.server = o.server
),
tools AS (
  SELECT DISTINCT srv AS server, c['tool'] AS tool FROM tool_diff
),
fields AS (
  SELECT c.case_id, unnest(array_concat(c.gold['required_fields'], coalesce(c.gold['forbidden_fields'], CAST([] AS VARCHAR[])))) AS field
  FROM cases c
),
read AS (
  SELECT DISTINCT case_id, server, field FROM (
    SELECT case_id, server, unnest(fields) AS field FROM call_fields
    WHERE case_id IS NOT NULL AND NOT is_error
  ) AS r
),
cat_hits AS (
  SELECT f.case_id, 'catalog column ' || coalesce(k.schema_name || '.', '') || k.table_name || '.' || k.column_name || ' ' || k.how AS change,
    'in gold' AS via
  FROM fields f JOIN cat k
    ON f.field = (k.table_name || '.' || k.column_name)
    OR f.field = (coalesce(k.schema_name || '.', '') || k.table_name || '.' || k.column_name)
  UNION ALL
  SELECT r.case_id, 'catalog column ' || coalesce(k.schema_name || '.', '') || k.table_name || '.' || k.column_name || ' ' || k.how,
    'read on ' || r.server
  FROM read r JOIN cat k
    ON r.field = (k.table_name || '.' || k.column_name)
    OR r.field = (coalesce(k.schema_name || '.', '') || k.table_name || '.' || k.column_name)
),
touched AS (
  SELECT case_id, change || ' (' || CAST(string_agg(DISTINCT via, ', ' ORDER BY via) AS VARCHAR) || ')' AS reason
  FROM cat_hits GROUP BY case_id, change
  UNION ALL
  SELECT c.case_id, 'glossary term ''' || t.term || ''' ' || t.how
  FROM cases c JOIN terms t
    ON has_term(c.question, t.term)
    OR c.gold['definition'] = t.new_definition OR c.gold['definition'] = t.old_definition
  UNION ALL
  SELECT c.case_id, 'policy ' || coalesce(p.scope, '(no scope)') || ' for ' || coalesce(p.as_user, p.role, 'everyone') || ' ' || p.how
  FROM cases c JOIN pol p
    ON (p.as_user IS NOT NULL AND c.as_user = p.as_user) OR (p.as_user IS NULL AND c.user_role = p.role)
  UNION ALL
  SELECT f.case_id, 'tool ' || t.tool || ' (' || t.server || ') changed'
  FROM fields f JOIN tools t ON f.field LIKE (t.tool || '.%')
  UNION ALL
  SELECT DISTINCT k.case_id, 'tool ' || t.tool || ' (' || t.server || ') changed'
  FROM calls k JOIN tools t ON t.server = k.server AND t.tool = k.tool
  WHERE k.case_id IS NOT NULL
  UNION ALL
  SELECT c.case_id, 'tool ' || t.tool || ' (' || t.server || ') changed'
  FROM cases c JOIN glossary g ON has_term(c.question, g.term)
  JOIN tools t ON array_has(g.tools, t.tool)
)
SELECT case_id, count(DISTINCT reason) AS touched,
  CAST(string_agg(DISTINCT reason, '; ' ORDER BY reason) AS VARCHAR) AS reasons
FROM touched
WHERE (SELECT yes FROM given)
GROUP BY case_id
