-- label: failures_semantic
-- definition: seed 000, semantic class ("the right entity but the wrong meaning").
--   Trace symptoms: a forbidden field read by the query's logic (forbidden-field: a
--   filter, join, grouping or aggregate; task_grounding.forbidden_in_logic; a forbidden
--   column only shown, by a projection or a star, is no symptom by itself); "a WHERE clause that uses a
--   column whose name resembles the business term instead of the governed definition"
--   (definition-mismatch: a term not resolved to its governed predicate, by a task that
--   read some field: one that read none chose no predicate); "a reasoning
--   step that contains 'sounds like', 'probably', or 'I will assume'" (hedging; the
--   phrases come from hedging_phrases, those by default)
-- grain: one row per symptom: (run_id, server, case_id, call_id, class, rule, evidence)
-- inputs: task_grounding, task_definition_match, hedged_steps
-- nulls: call_id is NULL for a task-level symptom
SELECT * FROM (
SELECT run_id, server, case_id, NULL AS call_id, 'semantic' AS class, 'forbidden-field' AS rule,
  'used ' || array_to_string(forbidden_in_logic, ', ') AS evidence
FROM task_grounding WHERE cardinality(forbidden_in_logic) > 0
UNION ALL
SELECT d.run_id, d.server, d.case_id, NULL, 'semantic', 'definition-mismatch',
  'not resolved to the governed predicate: ' || array_to_string(d.definition_mismatched, ', ')
FROM task_definition_match d
-- A task that read nothing (a refusal) resolved no term, but chose no wrong predicate.
WHERE d.definition_match = false AND d.read_data
UNION ALL
SELECT DISTINCT s.run_id, s.server, s.case_id, NULL, 'semantic', 'hedging',
  'step ' || CAST(s.step AS VARCHAR) || ': ' || s.text
FROM hedged_steps s
) AS f(run_id, server, case_id, call_id, class, rule, evidence)
