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
),
per_task AS (
  SELECT run_id, server, case_id,
    avg(CAST(hits AS DOUBLE) / used) FILTER (WHERE used > 0) AS precision_mean,
    count(used) FILTER (WHERE used > 0) AS used_calls,
    avg(CAST(hits AS DOUBLE) / cardinality(required)) FILTER (WHERE used > 0) AS recall_mean,
    flatten(array_agg(fields) FILTER (WHERE used > 0)) AS fields,
    flatten(array_agg(array_intersect(fields, forbidden)) FILTER (WHERE used > 0)) AS forbidden_used,
    flatten(array_agg(array_intersect(logic_fields, forbidden)) FILTER (WHERE used > 0)) AS forbidden_in_logic,
    flatten(array_agg(field_reasons)) AS field_reasons,
    array_agg(tool) FILTER (WHERE used > 0 AND lineage_source = 'arguments') AS argument_tools,
    count(used) AS calls
  FROM per_call GROUP BY run_id, server, case_id
)
SELECT t.run_id, t.server, t.case_id,
  CASE WHEN coalesce(cardinality(t.gold['required_fields']), 0) + coalesce(cardinality(t.gold['forbidden_fields']), 0) > 0
    THEN round(p.precision_mean, 12) END AS grounding_precision,
  CASE
    WHEN coalesce(cardinality(t.gold['required_fields']), 0) = 0 THEN NULL
    WHEN coalesce(p.used_calls, 0) = 0 THEN 0.0
    ELSE round(p.recall_mean, 12)
  END AS grounding_recall,
  CASE
    WHEN coalesce(cardinality(t.gold['required_fields']), 0) = 0 THEN NULL
    ELSE round(CAST(cardinality(array_intersect(array_distinct(t.gold['required_fields']),
      coalesce(p.fields, CAST([] AS VARCHAR[]))))
      AS DOUBLE) / cardinality(array_distinct(t.gold['required_fields'])), 12)
  END AS task_recall,
  coalesce(array_sort(array_distinct(p.fields)), CAST([] AS VARCHAR[])) AS fields_used,
  coalesce(array_sort(array_distinct(p.forbidden_used)), CAST([] AS VARCHAR[])) AS forbidden_used,
  coalesce(array_sort(array_distinct(p.forbidden_in_logic)), CAST([] AS VARCHAR[])) AS forbidden_in_logic,
  coalesce(array_sort(array_distinct(p.field_reasons)), CAST([] AS VARCHAR[])) AS field_reasons,
  coalesce(array_sort(array_distinct(p.argument_tools)), CAST([] AS VARCHAR[])) AS argument_tools,
  coalesce(p.calls, 0) AS calls,
  coalesce(cardinality(t.gold['required_fields']), 0) + coalesce(cardinality(t.gold['forbidden_fields']), 0) > 0 AS grounding_scored
FROM tasks t
LEFT JOIN per_task p ON p.run_id = t.run_id AND p.server = t.server AND p.case_id = t.case_id
