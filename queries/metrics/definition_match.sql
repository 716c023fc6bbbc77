-- metric: task_definition_match
-- definition: seed 000, "tasks where every business term in the question resolved to its
--   governed predicate / tasks containing at least one business term". A business term is
--   a glossary term the question names as words (task_terms). It resolved when a call of
--   the task is to a tool the glossary says encodes it, or runs SQL whose filters apply
--   the term's governed predicate (predicate_match = match). Calls whose result is an
--   error are left out. A term no call resolved is a mismatch, unless some call's SQL
--   gave `unsure` for it: then the task is undecided.
--   "Applies" is equivalence on the governed column, not implication: the query's
--   filters on that column must admit the same values as the governed predicate; filters
--   on other columns (a region, a window) are free. Each side's conjuncts on the column
--   (IN, =, <>, NOT IN, ranges, BETWEEN; NOT over an OR by De Morgan) are intersected into
--   one set, a finite set of states or a range with holes, and the two sets compared:
--   | governed                         | query                                   | verdict  |
--   | status IN ('A', 'P')             | status IN ('P', 'A')                    | match    |
--   | status IN ('A', 'P')             | status = 'A' OR status = 'P'            | match    |
--   | status IN ('A', 'P')             | status = 'A' (a subset)                 | mismatch |
--   | status IN ('A', 'P')             | status IN ('A', 'P', 'T') (a superset)  | mismatch |
--   | status IN ('A', 'P')             | status IN ('A', 'P') AND status <> 'A'  | mismatch |
--   | status IN ('A', 'P')             | status IN ('A', 'P') AND IN ('A', 'T')  | mismatch |
--   | status IN ('A', 'P')             | status IN ('A', 'P', 'T') AND <> 'T'    | match    |
--   | amount BETWEEN 10000 AND 50000   | amount >= 10000 AND amount <= 50000     | match    |
--   | amount BETWEEN 10000 AND 50000   | amount >= 20000 AND amount <= 30000     | mismatch |
--   | amount BETWEEN 10000 AND 50000   | amount = 20000                          | mismatch |
--   | amount BETWEEN 10000 AND 50000   | amount >= 0 (wider)                     | mismatch |
--   | amount BETWEEN 10000 AND 50000   | the same AND amount <> 20000 (a hole)   | mismatch |
--   | amount > 10000 AND <= 50000      | BETWEEN 10000 AND 50000 AND <> 10000    | match    |
--   | amount BETWEEN 1 AND 3           | amount IN (1, 2, 3)                     | unsure   |
--   | stage NOT IN ('won', 'lost')     | NOT (stage = 'won' OR stage = 'lost')   | match    |
--   | stage NOT IN ('won', 'lost')     | stage <> 'won' AND stage <> 'lost'      | match    |
--   | stage NOT IN ('won', 'lost')     | stage NOT IN ('won')  (excludes fewer)  | mismatch |
--   | stage NOT IN ('won', 'lost')     | NOT IN ('won','lost','stalled') (more)  | mismatch |
--   | stage NOT IN ('won', 'lost')     | stage = 'negotiation' (one state left)  | mismatch |
--   | plan <> 'trial'                  | plan = 'pro', the question says "pro"   | match    |
--   | status IN ('A', 'P')             | lower(status) = 'a'                     | unsure   |
--   | status IN ('A', 'P')             | status IN ('A', 'P') AND region = 'EMEA'| match    |
--   An exclusion term is a set like any other (issue #50): a narrower filter undercounts
--   it, unless the question asks for the narrower states by name: "MRR on the enterprise
--   plan" keeps plan = 'enterprise' of MRR's plan <> 'trial' and matches (the question,
--   the term's own words taken out, is predicate_match's fifth argument: "open tickets"
--   names the term, not the state 'open', so status = 'open' for "open = status IN
--   (open, pending)" stays a mismatch); "open pipeline" kept to stage = 'negotiation' by
--   a question that never says negotiation is a mismatch. Integers listed against their
--   range are unsure (equal only on an integer column); an OR of ranges or an expression
--   on the column is unsure, with the shape named in the reason. Tested in
--   tests/slt/udfs/predicate_match.slt.
--   A tool without SQL whose lineage (its tool_context row or its description) reads the
--   term's governed column computes from the column but says nothing of the predicate it
--   applies: when the glossary names no tool for the term, the term is unsure (definition
--   unknown, to review), not a mismatch; when it names tools, another tool is a mismatch
--   (the named ones encode the definition). A column is the term's when the governed
--   predicate names it as a word (has_term on the column's own name).
-- grain: (run_id, server, case_id)
-- inputs: task_terms, tasks, call_fields, catalog_entries
-- nulls: definition_match is NULL when the question has no business term
--   (business_terms = 0) or when it cannot be decided (definition_unsure has the terms);
--   read_data (a call of the task read some field; false for a refusal) is never NULL
WITH terms AS (
  -- The question without the term's own words: "open tickets" names the term, not the
  -- state 'open'.
  SELECT tt.run_id, tt.server, tt.case_id, tt.term, tt.predicate, tt.tools,
    replace(lower(t.question), lower(tt.term), ' ') AS question
  FROM task_terms tt
  JOIN tasks t ON t.run_id = tt.run_id AND t.server = tt.server AND t.case_id = tt.case_id
),
verdicts AS (
  SELECT tm.run_id, tm.server, tm.case_id, tm.term,
    CASE
      WHEN array_has(coalesce(tm.tools, CAST([] AS VARCHAR[])), f.tool) THEN 'match'
      WHEN f.sql IS NOT NULL AND tm.predicate IS NOT NULL
        THEN predicate_match(f.sql, tm.predicate, coalesce(f.dialect, 'generic'), (SELECT entries FROM catalog_entries), tm.question)
    END AS verdict,
    coalesce(cardinality(f.fields), 0) > 0 AS read_data
  FROM terms tm
  LEFT JOIN call_fields f ON f.run_id = tm.run_id AND f.server = tm.server AND f.case_id = tm.case_id
    AND NOT f.is_error
),
-- Terms whose governed column a call without SQL reads through declared lineage.
unknown AS (
  SELECT DISTINCT tm.run_id, tm.server, tm.case_id, tm.term
  FROM terms tm
  JOIN (
    SELECT run_id, server, case_id, tool, unnest(fields) AS field
    FROM call_fields
    WHERE sql IS NULL AND NOT is_error AND lineage_source <> 'arguments'
  ) u ON u.run_id = tm.run_id AND u.server = tm.server AND u.case_id = tm.case_id
  WHERE tm.predicate IS NOT NULL
    AND coalesce(cardinality(tm.tools), 0) = 0
    AND has_term(tm.predicate, regexp_replace(u.field, '^.*[.]', ''))
),
per_term AS (
  SELECT v.run_id, v.server, v.case_id, v.term,
    CASE WHEN bool_or(v.verdict = 'match') THEN 'match'
         WHEN bool_or(v.verdict = 'unsure') OR bool_or(u.term IS NOT NULL) THEN 'unsure'
         ELSE 'mismatch' END AS verdict,
    bool_or(v.read_data) AS read_data
  FROM verdicts v
  LEFT JOIN unknown u ON u.run_id = v.run_id AND u.server = v.server AND u.case_id = v.case_id
    AND u.term = v.term
  GROUP BY v.run_id, v.server, v.case_id, v.term
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
