-- metric: task_definition_match
-- definition: seed 000, "tasks where every business term in the question resolved to its
--   governed predicate / tasks containing at least one business term". A business term is
--   a glossary term found in the question (case-insensitive). It resolved when a call of
--   the task is to a tool the glossary says encodes it, or runs SQL whose filters imply
--   the term's governed predicate (predicate_match = match). Calls whose result is an
--   error are left out. A term no call resolved is a
--   mismatch, unless some call's SQL gave `unsure` for it: then the task is undecided.
-- grain: (run_id, server, case_id)
-- inputs: tasks, glossary, call_fields, catalog_entries
-- nulls: definition_match is NULL when the question has no business term
--   (business_terms = 0) or when it cannot be decided (definition_unsure has the terms)
WITH terms AS (
  SELECT t.run_id, t.server, t.case_id, g.term, g.predicate, g.tools
  FROM tasks t JOIN glossary g ON strpos(lower(t.question), lower(g.term)) > 0
),
verdicts AS (
  SELECT tm.run_id, tm.server, tm.case_id, tm.term,
    CASE
      WHEN array_has(coalesce(tm.tools, CAST([] AS VARCHAR[])), f.tool) THEN 'match'
      WHEN f.sql IS NOT NULL AND tm.predicate IS NOT NULL
        THEN predicate_match(f.sql, tm.predicate, coalesce(f.dialect, 'generic'), (SELECT entries FROM catalog_entries))
    END AS verdict
  FROM terms tm
  LEFT JOIN call_fields f ON f.run_id = tm.run_id AND f.server = tm.server AND f.case_id = tm.case_id
    AND NOT f.is_error
),
per_term AS (
  SELECT run_id, server, case_id, term,
    CASE WHEN bool_or(verdict = 'match') THEN 'match'
         WHEN bool_or(verdict = 'unsure') THEN 'unsure'
         ELSE 'mismatch' END AS verdict
  FROM verdicts GROUP BY run_id, server, case_id, term
)
SELECT t.run_id, t.server, t.case_id,
  count(p.term) AS business_terms,
  CASE WHEN count(p.term) = 0 THEN NULL
       WHEN bool_and(p.verdict = 'match') THEN true
       WHEN bool_or(p.verdict = 'mismatch') THEN false
  END AS definition_match,
  coalesce(array_sort(array_agg(p.term) FILTER (WHERE p.verdict = 'mismatch')), CAST([] AS VARCHAR[])) AS definition_mismatched,
  coalesce(array_sort(array_agg(p.term) FILTER (WHERE p.verdict = 'unsure')), CAST([] AS VARCHAR[])) AS definition_unsure
FROM tasks t
LEFT JOIN per_term p ON p.run_id = t.run_id AND p.server = t.server AND p.case_id = t.case_id
GROUP BY t.run_id, t.server, t.case_id
