-- view: tool_lineage
-- definition: what each tool reads, for call_fields: the tool_context row its owner wrote,
--   else what the tool's own definition says (its latest tool_snapshots row), else
--   nothing (its calls then count as reading `tool.argument` fields). Inferred from the
--   definition, the choices written down: an SQL argument is a string property whose
--   description says SQL (the word), or one named sql, query, statement or sql_query of a
--   tool whose description says SQL, when exactly one property qualifies (two: none is
--   guessed); its dialect is generic; each call's value must then parse (a value that
--   does not is a field reason, so the task goes to review). Declared lineage is the
--   catalog columns (table.column, as the catalog writes them) the tool's description
--   names, word for word. source says which: tool_context, schema (an SQL argument),
--   description (named columns).
-- grain: (server, tool)
-- inputs: tool_context, latest_tools, catalog
-- nulls: sql_argument and dialect are NULL for a tool without SQL; fields is NULL for a
--   tool whose SQL argument gives its fields
WITH latest AS (
  SELECT s.server, s.tool, s.description, s.input_schema
  FROM latest_tools s
  WHERE NOT EXISTS (SELECT 1 FROM tool_context tc WHERE tc.server = s.server AND tc.tool = s.tool)
),
names AS (
  SELECT server, tool, description, json_get_json(input_schema, 'properties') AS properties,
    unnest(json_object_keys(json_get_json(input_schema, 'properties'))) AS arg
  FROM latest
),
props AS (
  SELECT server, tool, description, arg, json_get_json(properties, arg) AS prop FROM names
),
sql_args AS (
  SELECT server, tool, min(arg) AS arg, count(*) AS candidates
  FROM props
  WHERE json_get_str(prop, 'type') = 'string'
    AND (regexp_like(coalesce(json_get_str(prop, 'description'), ''), '\bsql\b', 'i')
      OR (lower(arg) IN ('sql', 'query', 'statement', 'sql_query')
        AND regexp_like(coalesce(description, ''), '\bsql\b', 'i')))
  GROUP BY server, tool
),
named AS (
  SELECT l.server, l.tool, array_sort(array_agg(DISTINCT c.table_name || '.' || c.column_name)) AS fields
  FROM latest l JOIN catalog c ON has_term(coalesce(l.description, ''), c.table_name || '.' || c.column_name)
  GROUP BY l.server, l.tool
)
SELECT server, tool, sql_argument, dialect, fields, 'tool_context' AS source FROM tool_context
UNION ALL
SELECT server, tool, arg, 'generic', CAST(NULL AS VARCHAR[]), 'schema' FROM sql_args WHERE candidates = 1
UNION ALL
SELECT d.server, d.tool, CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR), d.fields, 'description'
FROM named d
WHERE NOT EXISTS (SELECT 1 FROM sql_args a WHERE a.server = d.server AND a.tool = d.tool AND a.candidates = 1)
