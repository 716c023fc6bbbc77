-- view: task_terms
-- definition: the glossary's business terms each task's question names. A term is named
--   when the question has it as words (has_term: case-insensitive, on word boundaries, a
--   plural ending allowed), so "How many inactive customers" does not name "active
--   customer" and "reopen tickets" does not name "open ticket". One view for every rule
--   that asks which terms a question uses (definition match, the temporal rules).
-- grain: (run_id, server, case_id, term)
-- inputs: tasks, glossary
-- nulls: predicate, tools and time_column as the glossary gives them
SELECT t.run_id, t.server, t.case_id, g.term, g.predicate, g.tools, g.time_column
FROM tasks t JOIN glossary g ON has_term(t.question, g.term)
