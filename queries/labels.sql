-- label: labels
-- definition: seed 000's label.py: one row per task (run_id, server, case_id) with
--   correct (answer_correct of the last answer against gold.answer within
--   gold.tolerance), the grounding, definition, freshness, policy, clarification and cost
--   figures of queries/metrics, and:
--   grounded: correct for the right reason, which we take as every required field used
--   by the task (task_recall = 1: fields may be read by different calls) and no failure
--   symptom found (failure_evidence), hedging in reasoning aside (a sign to look at, not
--   a fault in what was read);
--   failure_class: the first class in the seed's order (entity, semantic, structural,
--   temporal, policy: ordered by where the fix lives) among the symptoms in
--   failure_evidence; hedging is evidence, never a class by itself: a task whose only
--   sign is hedging keeps grounded as what it read says, gets no class, and goes to review
--   (correct and grounded: "the reasoning hedged … confirm"; failed: "failed, but no
--   failure symptom found (the reasoning hedged)"). So failure_class IS NOT NULL implies
--   grounded = false. failure_classes: every class with a symptom (hedging aside);
--   needs_human_review: whatever the scorer could not decide, with the reasons (among
--   them a called tool without lineage when the task missed a required field: without a
--   tool_context row or a definition that says what it reads, its calls can never
--   ground a catalog field, and nothing else would say so).
--   human_* columns repeat the hand label from cases, and agrees_with_human compares.
--   A reviewer's decision (reviews) wins over the automatic correct, grounded and
--   failure_class; auto_* keep the automatic values, reviewed_by says who decided, and a
--   reviewed task no longer needs review.
--   A case with gold.expected_calls gets task_tool_calls' figures beside the seed's
--   (tool_calls_valid … forbidden_tool_calls, NULL for other cases); a case with expected
--   calls and no gold.answer is scored by its calls alone: correct = tool_calls_valid,
--   and no answer step is no reason for review; a task whose calls are invalid has its
--   failure named by tool_calls_reason, so it is no "failed, but no failure symptom".
--   not_scored (issue #50, "score a project on what it has"): the figures this task is
--   not scored on because the project lacks what they are measured against, each left
--   NULL with no review reason: 'grounding' when the case names no required or forbidden
--   field (task_grounding.grounding_scored: grounded is then NULL unless a failure
--   symptom makes it false); 'policy' when the project has no policies row and no policy
--   oracle ran (policy_violations NULL, no "no policy row" reason; a project with
--   policies but none for this user still goes to review); 'definition' when the project
--   has no glossary (definition_match is then NULL, as for a question without a term);
--   'cost' when nothing priced the task (task_cost.cost_source none: cost_usd NULL).
--   queries/not_scored.sql turns them into the report's one note per server.
--   trace_ids, answer_span_id, call_span_ids (issue #47): what the label judges, from
--   tasks: the task's traces, the span of its answer and of each tool call, for imported
--   and collected traces; `annotate` sends the verdicts there.
-- grain: (run_id, server, case_id)
-- inputs: tasks, task_grounding, task_definition_match, task_freshness, task_policy, task_cost,
--   task_clarifications, task_failures, task_tool_calls, reviews, policies,
--   external_policy, glossary
-- nulls: correct is NULL when the answer cannot be read (or there is none); grounded is
--   NULL when the grounding cannot be decided; a task whose case_id is not in cases (no
--   gold record, or its line was refused) is left unlabeled: correct, grounded and
--   failure_class NULL, with the reason; human_* are NULL for unlabeled cases;
--   agrees_with_human is NULL when either side is NULL; policy_violations is NULL when
--   policy is not scored (not_scored); not_scored is an empty list when every figure is
WITH decided AS (
  SELECT r.*, row_number() OVER (PARTITION BY run_id, server, case_id ORDER BY decided_at DESC NULLS LAST) AS n
  FROM reviews r
),
project AS (
  SELECT (SELECT count(*) FROM policies) + (SELECT count(*) FROM external_policy) > 0 AS has_policies,
    (SELECT count(*) FROM glossary) > 0 AS has_glossary
),
base AS (
  SELECT t.run_id, t.server, t.case_id, t.user_role, t.as_user, t.answer,
    t.trace_ids, t.answer_span_id, t.call_span_ids,
    CASE WHEN NOT t.has_case THEN NULL
         WHEN t.gold['answer'] IS NULL AND tc.case_id IS NOT NULL THEN tc.tool_calls_valid
         ELSE answer_correct(t.answer, t.gold['answer'], coalesce(t.gold['tolerance'], 0.0)) END AS correct,
    t.gold['answer'] IS NULL AND tc.case_id IS NOT NULL AS scored_by_calls,
    tc.tool_calls_valid, tc.tool_calls_reason, tc.tool_selection_precision, tc.tool_selection_recall,
    tc.argument_accuracy, tc.tool_call_f1, tc.exact_sequence, tc.forbidden_tool_calls,
    g.grounding_precision, g.grounding_recall, g.task_recall, g.argument_tools, g.fields_used, g.forbidden_used, g.field_reasons,
    d.business_terms, d.definition_match, d.definition_mismatched, d.definition_unsure,
    f.freshness_pass, f.freshness_unknown, f.bound_hours IS NOT NULL AS freshness_bound,
    coalesce(p.calls, 0) AS calls,
    CASE WHEN pr.has_policies THEN coalesce(p.policy_violations, 0) END AS policy_violations,
    pr.has_policies AND coalesce(p.no_policy, false) AS no_policy, coalesce(p.policy_unsure, CAST([] AS VARCHAR[])) AS policy_unsure,
    g.grounding_scored, pr.has_policies, pr.has_glossary,
    coalesce(q.clarification_turns, 0) AS clarification_turns, c.cost_usd, c.cost_source, c.unpriced_models,
    coalesce(fe.symptom_classes, CAST([] AS VARCHAR[])) AS failure_classes,
    coalesce(fe.hedged, false) AS hedged,
    coalesce(fe.evidence, CAST([] AS VARCHAR[])) AS failure_evidence,
    t.has_case,
    CASE WHEN t.is_source_trace THEN t.label_correct END AS human_correct,
    CASE WHEN t.is_source_trace THEN t.label_grounded END AS human_grounded,
    CASE WHEN t.is_source_trace AND t.label_correct IS NOT NULL THEN coalesce(t.label_failure_class, '-') END AS human_class
  FROM tasks t
  CROSS JOIN project pr
  JOIN task_grounding g ON g.run_id = t.run_id AND g.server = t.server AND g.case_id = t.case_id
  JOIN task_definition_match d ON d.run_id = t.run_id AND d.server = t.server AND d.case_id = t.case_id
  JOIN task_freshness f ON f.run_id = t.run_id AND f.server = t.server AND f.case_id = t.case_id
  LEFT JOIN task_policy p ON p.run_id = t.run_id AND p.server = t.server AND p.case_id = t.case_id
  LEFT JOIN task_cost c ON c.run_id = t.run_id AND c.server = t.server AND c.case_id = t.case_id
  LEFT JOIN task_clarifications q ON q.run_id = t.run_id AND q.server = t.server AND q.case_id = t.case_id
  LEFT JOIN task_failures fe ON fe.run_id = t.run_id AND fe.server = t.server AND fe.case_id = t.case_id
  LEFT JOIN task_tool_calls tc ON tc.run_id = t.run_id AND tc.server = t.server AND tc.case_id = t.case_id
),
grounding AS (
  SELECT base.*,
    CASE
      WHEN NOT has_case THEN NULL
      WHEN cardinality(failure_classes) > 0 THEN false
      WHEN NOT grounding_scored THEN NULL
      WHEN task_recall IS NOT NULL AND task_recall < 1.0 THEN false
      WHEN cardinality(field_reasons) > 0 OR cardinality(definition_unsure) > 0 THEN NULL
      ELSE true
    END AS grounded
  FROM base
),
judged AS (
  SELECT grounding.*,
    CASE
      WHEN NOT has_case THEN NULL
      WHEN array_has(failure_classes, 'entity') THEN 'entity'
      WHEN array_has(failure_classes, 'semantic') THEN 'semantic'
      WHEN array_has(failure_classes, 'structural') THEN 'structural'
      WHEN array_has(failure_classes, 'temporal') THEN 'temporal'
      WHEN array_has(failure_classes, 'policy') THEN 'policy'
    END AS failure_class,
    hedged AND cardinality(failure_classes) = 0 AND correct AND grounded AS hedged_only
  FROM grounding
),
final AS (
SELECT run_id, server, case_id, user_role, as_user,
  correct, grounded, failure_class, failure_classes, failure_evidence,
  grounding_precision, grounding_recall, task_recall, fields_used, forbidden_used,
  business_terms, definition_match, freshness_bound, freshness_pass, calls, policy_violations,
  clarification_turns, cost_usd, cost_source, answer, trace_ids, answer_span_id, call_span_ids,
  tool_calls_valid, tool_calls_reason, tool_selection_precision, tool_selection_recall,
  argument_accuracy, tool_call_f1, exact_sequence, forbidden_tool_calls,
  CASE WHEN NOT has_case THEN ['case_id not in cases: left unlabeled (a cases line refused by --on-bad-line skip is in rejects.jsonl)']
  ELSE array_concat(
    CASE WHEN answer IS NULL AND NOT scored_by_calls THEN ['no answer step'] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN answer IS NOT NULL AND correct IS NULL AND NOT scored_by_calls THEN ['answer cannot be read against the gold answer'] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN tool_calls_reason IS NOT NULL AND tool_calls_valid IS NULL THEN ['expected calls not read: ' || tool_calls_reason] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN cardinality(field_reasons) > 0 AND grounding_scored THEN ['SQL not resolved: ' || array_to_string(field_reasons, '; ')] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN cardinality(definition_unsure) > 0 THEN ['definition undecided for: ' || array_to_string(definition_unsure, ', ')] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN freshness_unknown THEN ['result age unknown (no timestamps)'] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN no_policy THEN ['no policy row for ' || as_user] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN cardinality(policy_unsure) > 0 THEN ['policy not checked: ' || array_to_string(policy_unsure, '; ')] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN cardinality(unpriced_models) > 0 THEN ['no price for model ' || array_to_string(unpriced_models, ', ')] ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN (correct = false OR grounded = false) AND failure_class IS NULL AND NOT coalesce(tool_calls_valid = false, false)
      THEN ['failed, but no failure symptom found' || CASE WHEN hedged THEN ' (the reasoning hedged)' ELSE '' END]
      ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN task_recall < 1.0 AND cardinality(argument_tools) > 0
      THEN ['no lineage for ' || array_to_string(argument_tools, ', ') || ': its calls count as reading their arguments (tool.argument), never catalog columns; give it a tool_context row (docs/tables.md)']
      ELSE CAST([] AS VARCHAR[]) END,
    CASE WHEN hedged_only THEN ['the reasoning hedged, but what was read is grounded: confirm'] ELSE CAST([] AS VARCHAR[]) END
  ) END AS review_reasons,
  CASE WHEN NOT has_case THEN CAST([] AS VARCHAR[]) ELSE array_concat(
    CASE WHEN grounding_scored THEN CAST([] AS VARCHAR[]) ELSE ['grounding'] END,
    CASE WHEN has_policies THEN CAST([] AS VARCHAR[]) ELSE ['policy'] END,
    CASE WHEN has_glossary THEN CAST([] AS VARCHAR[]) ELSE ['definition'] END,
    CASE WHEN cost_usd IS NULL THEN ['cost'] ELSE CAST([] AS VARCHAR[]) END
  ) END AS not_scored,
  human_correct, human_grounded, nullif(human_class, '-') AS human_failure_class,
  CASE WHEN human_correct IS NULL OR correct IS NULL OR grounded IS NULL THEN NULL
       ELSE human_correct = correct AND human_grounded = grounded
            AND human_class = coalesce(failure_class, '-') END AS agrees_with_human
FROM judged
),
reviewed AS (
  SELECT f.*, d.reviewer AS reviewed_by,
    coalesce(d.correct, f.correct) AS final_correct,
    coalesce(d.grounded, f.grounded) AS final_grounded,
    CASE WHEN d.failure_class = 'none' THEN NULL ELSE coalesce(d.failure_class, f.failure_class) END AS final_class
  FROM final f
  LEFT JOIN decided d ON d.run_id = f.run_id AND d.server = f.server AND d.case_id = f.case_id AND d.n = 1
)
SELECT run_id, server, case_id, user_role, as_user,
  final_correct AS correct, final_grounded AS grounded, final_class AS failure_class,
  cardinality(review_reasons) > 0 AND reviewed_by IS NULL AS needs_human_review, review_reasons,
  failure_classes, failure_evidence, grounding_precision, grounding_recall, task_recall, fields_used, forbidden_used,
  business_terms, definition_match, freshness_bound, freshness_pass, calls, policy_violations, clarification_turns,
  cost_usd, cost_source, answer, human_correct, human_grounded, human_failure_class,
  CASE WHEN human_correct IS NULL OR final_correct IS NULL OR final_grounded IS NULL THEN NULL
       ELSE human_correct = final_correct AND human_grounded = final_grounded
            AND coalesce(human_failure_class, '-') = coalesce(final_class, '-') END AS agrees_with_human,
  correct AS auto_correct, grounded AS auto_grounded, failure_class AS auto_failure_class, reviewed_by,
  tool_calls_valid, tool_calls_reason, tool_selection_precision, tool_selection_recall,
  argument_accuracy, tool_call_f1, exact_sequence, forbidden_tool_calls, not_scored,
  trace_ids, answer_span_id, call_span_ids
FROM reviewed
