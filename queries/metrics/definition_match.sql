-- metric: task_definition_match
-- definition: seed 000, "tasks where every business term in the question resolved to its
--   governed predicate / tasks containing at least one business term". A business term is
--   a glossary term the question names as words (task_terms). It resolved when a call of
--   the task is to a tool the glossary says encodes it, or runs SQL whose filters apply
--   the term's governed predicate (predicate_match = match). Calls whose result is an
--   error are left out. A term no call resolved is a mismatch, unless some call's SQL
--   gave `unsure` for it: then the task is undecided.
--   "Applies" is equivalence on the governed column, not implication: the query's
--   filters on that column must select the same rows as the governed predicate; filters
--   on other columns (a region, a window) are free. Per governed conjunct:
--   | governed                         | query                                   | verdict  |
--   | status IN ('A', 'P')             | status IN ('P', 'A')                    | match    |
--   | status IN ('A', 'P')             | status = 'A' OR status = 'P'            | match    |
--   | status IN ('A', 'P')             | status = 'A' (a subset)                 | mismatch |
--   | status IN ('A', 'P')             | status IN ('A', 'P', 'T') (a superset)  | mismatch |
--   | amount BETWEEN 10000 AND 50000   | amount >= 10000 AND amount <= 50000     | match    |
--   | amount BETWEEN 10000 AND 50000   | amount >= 20000 AND amount <= 30000     | mismatch |
--   | amount BETWEEN 10000 AND 50000   | amount = 20000                          | mismatch |
--   | amount BETWEEN 10000 AND 50000   | amount >= 0 (wider)                     | mismatch |
--   | stage NOT IN ('won', 'lost')     | NOT (stage = 'won' OR stage = 'lost')   | match    |
--   | stage NOT IN ('won', 'lost')     | stage NOT IN ('won')  (excludes fewer)  | mismatch |
--   | plan <> 'trial'                  | plan = 'pro' (only states outside it)   | match    |
--   | status IN ('A', 'P')             | lower(status) = 'a'                     | unsure   |
--   | status IN ('A', 'P')             | status IN ('A', 'P') AND region = 'EMEA'| match    |
--   An exclusion (NOT IN, <>) is a constraint, not a membership: a query that keeps only
--   states outside it ("enterprise MRR": plan = 'enterprise') applies it; a value set or
--   a range is a membership and must be the same set. Tested in
--   tests/slt/udfs/predicate_match.slt.
-- grain: (run_id, server, case_id)
-- inputs: task_terms, tasks, call_fields, catalog_entries
-- nulls: definition_match is NULL when the question has no business term
--   (business_terms = 0) or when it cannot be decided (definition_unsure has the terms);
--   read_data (a call of the task read some field; false for a refusal) is never NULL
WITH terms AS (
  SELECT run_id, server, case_id, term, predicate, tools FROM task_terms
),
verdicts AS (
  SELECT tm.run_id, tm.server, tm.case_id, tm.term,
    CASE
      WHEN array_has(coalesce(tm.tools, CAST([] AS VARCHAR[])), f.tool) THEN 'match'
      WHEN f.sql IS NOT NULL AND tm.predicate IS NOT NULL
        THEN predicate_match(f.sql, tm.predicate, coalesce(f.dialect, 'generic'), (SELECT entries FROM catalog_entries))
    END AS verdict,
    coalesce(cardinality(f.fields), 0) > 0 AS read_data
  FROM terms tm
  LEFT JOIN call_fields f ON f.run_id = tm.run_id AND f.server = tm.server AND f.case_id = tm.case_id
    AND NOT f.is_error
),
per_term AS (
  SELECT run_id, server, case_id, term,
    CASE WHEN bool_or(verdict = 'match') THEN 'match'
         WHEN bool_or(verdict = 'unsure') THEN 'unsure'
         ELSE 'mismatch' END AS verdict,
    bool_or(read_data) AS read_data
  FROM verdicts GROUP BY run_id, server, case_id, term
)
SELECT t.run_id, t.server, t.case_id,
  count(p.term) AS business_terms,
  CASE WHEN count(p.term) = 0 THEN NULL
       WHEN bool_and(p.verdict = 'match') THEN true
       WHEN bool_or(p.verdict = 'mismatch') THEN false
  END AS definition_match,
  coalesce(array_sort(array_agg(p.term) FILTER (WHERE p.verdict = 'mismatch')), CAST([] AS VARCHAR[])) AS definition_mismatched,
  coalesce(array_sort(array_agg(p.term) FILTER (WHERE p.verdict = 'unsure')), CAST([] AS VARCHAR[])) AS definition_unsure,
  coalesce(bool_or(p.read_data), false) AS read_data
FROM tasks t
LEFT JOIN per_term p ON p.run_id = t.run_id AND p.server = t.server AND p.case_id = t.case_id
GROUP BY t.run_id, t.server, t.case_id
