-- view: hedged_steps
-- definition: seed 000's semantic symptom "a reasoning step that contains 'sounds like',
--   'probably', or 'I will assume'": the reasoning steps of a task whose text contains a
--   phrase of hedging_phrases (those three, and "I'll assume", when the table is empty),
--   compared in lower case. The semantic class reads it (failures_semantic, rule
--   hedging), and the HTML report marks the step where the model guessed
-- grain: (run_id, server, case_id, trace_id, step)
-- inputs: steps, hedging_phrases
-- nulls: none: steps of no case are left out
SELECT DISTINCT s.run_id, s.server, s.case_id, s.trace_id, s.step, s.text
FROM steps s
JOIN (
  SELECT lower(phrase) AS phrase FROM hedging_phrases
  UNION ALL
  SELECT phrase FROM (VALUES ('sounds like'), ('probably'), ('i will assume'), ('i''ll assume')) AS d(phrase)
  WHERE NOT EXISTS (SELECT 1 FROM hedging_phrases)
) AS h ON strpos(lower(s.text), h.phrase) > 0
WHERE s.kind = 'reasoning' AND s.case_id IS NOT NULL
