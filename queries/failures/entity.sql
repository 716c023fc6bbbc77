-- label: failures_entity
-- definition: seed 000, entity class ("the call refers to the wrong thing"). Trace
--   symptoms: "an argument whose format matches one ID scheme passed into a tool that
--   documents another" (id-scheme: the value matches another scheme's regex in id_schemes
--   and not the one the parameter takes), "often followed by an empty result the agent
--   treats as a true negative" (empty-true-negative: an empty result, an answer that
--   says none or zero, and a gold answer that is not)
-- grain: one row per symptom: (run_id, server, case_id, call_id, class, rule, evidence)
-- inputs: calls, tasks, id_schemes
-- nulls: call_id is NULL for a task-level symptom
SELECT * FROM (
SELECT a.run_id, a.server, a.case_id, a.call_id, 'entity', 'id-scheme',
  a.tool || '.' || a.param || ' = ' || a.value || ' is a ' || other.scheme || ', the parameter takes ' || own.scheme
FROM (
  SELECT k.run_id, k.server, k.case_id, k.call_id, k.tool, p.param,
    json_get_str(k.arguments, p.param) AS value
  FROM calls k
  JOIN (SELECT DISTINCT split_part(unnest(parameters), '.', 1) AS tool, split_part(unnest(parameters), '.', 2) AS param FROM id_schemes) AS p
    ON p.tool = k.tool
) AS a
JOIN id_schemes own ON array_has(own.parameters, a.tool || '.' || a.param)
JOIN id_schemes other ON other.scheme <> own.scheme AND regexp_like(a.value, '^(' || other.regex || ')$')
WHERE a.value IS NOT NULL AND NOT regexp_like(a.value, '^(' || own.regex || ')$')
UNION ALL
SELECT k.run_id, k.server, k.case_id, k.call_id, 'entity', 'empty-true-negative',
  k.tool || ' returned nothing and the answer says there is none: ' || t.answer
FROM calls k
JOIN tasks t ON t.run_id = k.run_id AND t.server = k.server AND t.case_id = k.case_id
WHERE result_is_empty(k.result) AND NOT coalesce(k.is_error, false)
  AND answer_correct(t.answer, '0') AND t.gold['answer'] NOT IN ('0', '[]', '""')
) AS f(run_id, server, case_id, call_id, class, rule, evidence)
