-- view: call_fields
-- definition: the fields each call used (seed 000: "columns in the query, arguments in the
--   tool call"). A tool whose tool_lineage (its tool_context row, or what its definition
--   says: queries/tool_lineage.sql) names an sql_argument used the catalog columns
--   its SQL reads (sql_fields, in the declared dialect); a tool with declared fields used
--   those (its lineage; an empty list: no data field, like list_tables); any other tool
--   used `tool.argument` for each argument it was given (lineage_source: arguments).
--   logic_fields: the part of fields that decides the answer (seed 000's semantic symptom
--   is "a WHERE clause that uses a column"): for SQL, the columns its filters, joins,
--   grouping and aggregates read (sql_fields' logic_fields), not those it only shows (a
--   plain projection or a star, which stay in fields, so grounding still counts them);
--   for a tool without SQL, all of fields (an argument chooses what comes back; declared
--   lineage is what the tool computes from).
-- grain: (run_id, server, trace_id, call_id)
-- inputs: calls, tool_lineage, catalog_entries
-- nulls: is_error is false for a call without a result; sql and dialect are NULL for
--   calls that carry no SQL; field_reasons is empty
--   unless the SQL could not be parsed or resolved
WITH k AS (
  SELECT calls.*, tc.sql_argument, tc.dialect, tc.fields AS declared, tc.source AS lineage_source,
    CASE WHEN tc.sql_argument IS NOT NULL THEN json_get_str(calls.arguments, tc.sql_argument) END AS sql,
    json_object_keys(calls.arguments) AS argument_names
  FROM calls
  LEFT JOIN tool_lineage tc ON tc.server = calls.server AND tc.tool = calls.tool
),
analysed AS (
  SELECT k.*,
    CASE WHEN k.sql IS NOT NULL
      THEN sql_fields(k.sql, coalesce(k.dialect, 'generic'), (SELECT entries FROM catalog_entries))
    END AS lineage,
    CASE
      WHEN k.declared IS NOT NULL THEN k.declared
      WHEN coalesce(cardinality(k.argument_names), 0) = 0 THEN CAST([] AS VARCHAR[])
      ELSE string_to_array(k.tool || '.' || array_to_string(array_sort(k.argument_names), ',' || k.tool || '.'), ',')
    END AS without_sql
  FROM k
)
SELECT
  run_id, server, case_id, trace_id, call_id, step, tool, arguments, sql, dialect,
  coalesce(lineage_source, 'arguments') AS lineage_source,
  coalesce(is_error, false) AS is_error,
  CASE WHEN sql_argument IS NOT NULL THEN coalesce(lineage['fields'], CAST([] AS VARCHAR[])) ELSE without_sql END AS fields,
  CASE WHEN sql_argument IS NOT NULL THEN coalesce(lineage['logic_fields'], CAST([] AS VARCHAR[])) ELSE without_sql END AS logic_fields,
  CASE
    WHEN sql_argument IS NOT NULL AND sql IS NULL THEN ['no ' || sql_argument || ' argument in the ' || tool || ' call']
    ELSE coalesce(lineage['reasons'], CAST([] AS VARCHAR[]))
  END AS field_reasons
FROM analysed
