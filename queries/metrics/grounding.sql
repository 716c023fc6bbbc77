-- metric: task_grounding
-- definition: seed 000, "Grounding precision = fields used that are in the required set /
--   all fields used. Grounding recall = required fields that were used / all required
--   fields", per call, then "averaged across calls in the task". Our choice where the
--   seed is loose: a call that used no field (list_tables, describe_table) is left out of
--   both averages, as it read no data; a task none of whose calls used a field has
--   recall 0 and precision NULL. A call whose result is an error read no data: it is left
--   out (a retry that then succeeds is judged on what it read). Fields compare exactly as written (write gold fields as
--   the catalog names them). The seed's Server A figure of 0.25 counts the COUNT(*) target
--   as a right field; COUNT(*) reads no column, so we give that query 0 and 0.
--   task_recall: required fields used by any call of the task / required fields. The
--   seed's averages stay per call, but whether the task read what it needed is a task
--   judgement: required fields split over two calls (subscriptions in one query,
--   customers in the next) are all used, and labels base grounded on task_recall.
--   forbidden_used: forbidden fields read anywhere (a star included);
--   forbidden_in_logic: those read by a call's logic (call_fields.logic_fields: filters,
--   joins, grouping, aggregates), the semantic class's symptom; a forbidden field that is
--   only shown is no symptom by itself (it still lowers precision).
--   argument_tools: tools the task called that have no lineage (no tool_context row and
--   none inferred: call_fields.lineage_source = arguments), whose calls count as reading
--   `tool.argument` fields only.
--   grounding_scored: whether the case says what grounds it, by naming a required or a
--   forbidden field. Our choice (issue #50, "score a project on what it has"): an empty
--   required set says nothing about the right reason (BFCL's cases and other tool-call
--   projects name none: the schema requires the key, not its content), so such a task's
--   grounding is not scored: grounding_precision NULL (not 0 against an empty set),
--   recall NULL, and labels leave grounded NULL without a review reason. A case whose
--   task must read no data says so with forbidden_fields.
-- grain: (run_id, server, case_id)
-- inputs: call_fields, tasks
-- nulls: means are rounded to 12 decimals (the order of a floating-point sum must not
--   change the output); grounding_precision is NULL when no call used a field or when
--   grounding is not scored;
--   grounding_recall and task_recall are NULL when the gold record requires no field
WITH per_call AS (
  SELECT f.run_id, f.server, f.case_id, f.fields, f.field_reasons,
    t.gold['required_fields'] AS required, coalesce(t.gold['forbidden_fields'], CAST([] AS VARCHAR[])) AS forbidden,
    f.logic_fields, f.tool, f.lineage_source,
    cardinality(f.fields) AS used,
    cardinality(array_intersect(f.fields, t.gold['required_fields'])) AS hits
  FROM call_fields f JOIN tasks t ON t.run_id = f.run_id AND t.server = f.server AND t.case_id = f.case_id
  WHERE NOT f.is_error
)
SELECT t.run_id, t.server, t.case_id,
  CASE WHEN coalesce(cardinality(t.gold['required_fields']), 0) + coalesce(cardinality(t.gold['forbidden_fields']), 0) > 0
    THEN round(avg(CAST(p.hits AS DOUBLE) / p.used) FILTER (WHERE p.used > 0), 12) END AS grounding_precision,
  CASE
    WHEN coalesce(cardinality(t.gold['required_fields']), 0) = 0 THEN NULL
    WHEN count(p.used) FILTER (WHERE p.used > 0) = 0 THEN 0.0
    ELSE round(avg(CAST(p.hits AS DOUBLE) / cardinality(p.required)) FILTER (WHERE p.used > 0), 12)
  END AS grounding_recall,
  CASE
    WHEN coalesce(cardinality(t.gold['required_fields']), 0) = 0 THEN NULL
    ELSE round(CAST(cardinality(array_intersect(array_distinct(t.gold['required_fields']),
      coalesce(flatten(array_agg(p.fields) FILTER (WHERE p.used > 0)), CAST([] AS VARCHAR[]))))
      AS DOUBLE) / cardinality(array_distinct(t.gold['required_fields'])), 12)
  END AS task_recall,
  coalesce(array_sort(array_distinct(flatten(array_agg(p.fields) FILTER (WHERE p.used > 0)))), CAST([] AS VARCHAR[])) AS fields_used,
  coalesce(array_sort(array_distinct(flatten(array_agg(array_intersect(p.fields, p.forbidden)) FILTER (WHERE p.used > 0)))), CAST([] AS VARCHAR[])) AS forbidden_used,
  coalesce(array_sort(array_distinct(flatten(array_agg(array_intersect(p.logic_fields, p.forbidden)) FILTER (WHERE p.used > 0)))), CAST([] AS VARCHAR[])) AS forbidden_in_logic,
  coalesce(array_sort(array_distinct(flatten(array_agg(p.field_reasons)))), CAST([] AS VARCHAR[])) AS field_reasons,
  coalesce(array_sort(array_distinct(array_agg(p.tool) FILTER (WHERE p.used > 0 AND p.lineage_source = 'arguments'))), CAST([] AS VARCHAR[])) AS argument_tools,
  count(p.used) AS calls,
  coalesce(cardinality(t.gold['required_fields']), 0) + coalesce(cardinality(t.gold['forbidden_fields']), 0) > 0 AS grounding_scored
FROM tasks t
LEFT JOIN per_call p ON p.run_id = t.run_id AND p.server = t.server AND p.case_id = t.case_id
GROUP BY t.run_id, t.server, t.case_id, t.gold
