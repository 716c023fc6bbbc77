-- view: catalog_entries
-- definition: the catalog as the one list the sql_* functions take as their catalog
--   argument: `[schema.]table.column`, then ` pk` for a primary-key column,
--   ` -> table.column` for a foreign key and ` [unit]` for an amount's unit
--   (udfs/src/sql/mod.rs). A name part that is not a plain identifier (blanks, dots,
--   quotes, parentheses: `frpm."Free Meal Count (K-12)"`) is double-quoted, `"` doubled
--   inside, so an entry is always the catalog's (table, column) pair, never a string cut
--   at a blank. Use as (SELECT entries FROM catalog_entries).
-- grain: one row
-- inputs: catalog
-- nulls: entries is NULL when the catalog is empty; a NULL key flag, reference or unit
--   adds nothing to its entry
WITH quoted AS (
  SELECT CASE WHEN regexp_like(schema_name, '^[A-Za-z_][A-Za-z0-9_$]*$') THEN schema_name ELSE '"' || replace(schema_name, '"', '""') || '"' END AS s,
    CASE WHEN regexp_like(table_name, '^[A-Za-z_][A-Za-z0-9_$]*$') THEN table_name ELSE '"' || replace(table_name, '"', '""') || '"' END AS t,
    CASE WHEN regexp_like(column_name, '^[A-Za-z_][A-Za-z0-9_$]*$') THEN column_name ELSE '"' || replace(column_name, '"', '""') || '"' END AS c,
    is_primary_key, foreign_key_to, unit
  FROM catalog
)
SELECT array_agg(entry ORDER BY entry) AS entries
FROM (
  SELECT coalesce(s || '.', '') || t || '.' || c
    || CASE WHEN is_primary_key THEN ' pk' ELSE '' END
    || coalesce(' -> ' || foreign_key_to, '')
    || coalesce(' [' || unit || ']', '') AS entry
  FROM quoted
) AS e
