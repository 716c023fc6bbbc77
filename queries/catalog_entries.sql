-- view: catalog_entries
-- definition: the catalog as the one list the sql_* functions take as their catalog
--   argument: `[schema.]table.column`, then ` pk` for a primary-key column,
--   ` -> table.column` for a foreign key and ` [unit]` for an amount's unit
--   (udfs/src/sql/mod.rs). Use as (SELECT entries FROM catalog_entries).
-- grain: one row
-- inputs: catalog
-- nulls: entries is NULL when the catalog is empty; a NULL key flag, reference or unit
--   adds nothing to its entry
SELECT array_agg(entry ORDER BY entry) AS entries
FROM (
  SELECT coalesce(schema_name || '.', '') || table_name || '.' || column_name
    || CASE WHEN is_primary_key THEN ' pk' ELSE '' END
    || coalesce(' -> ' || foreign_key_to, '')
    || coalesce(' [' || unit || ']', '') AS entry
  FROM catalog
) AS e
