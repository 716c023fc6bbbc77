-- report: label_flips
-- definition: what `report diff A B` and `--fail-on-regression` judge, per case
--   (labels_before: A, labels_after: B), each label that changed:
--   correct -> wrong and grounded -> ungrounded are regressions (a case the suite used to
--   pass for the right reason no longer does); so is a case that passed on A and is
--   undecided on B (correct or grounded NULL: the gate cannot vouch for it any more), and
--   a case labeled on A that B lacks ("missing in B": cases that vanish are not a pass).
--   wrong -> correct, ungrounded -> grounded, undecided -> a value, a value that was not a
--   pass -> undecided, a new failure class and a case only B has are changes to read, not
--   regressions. NULL on both sides flips nothing. In an ordinary session both sides are
--   empty: `report diff` fills them with the two sides' labels.
-- grain: (case_id, change)
-- inputs: labels_before, labels_after
-- nulls: none
-- order: readers order by (case_id, change), a total order (a view's own ORDER BY is
--   dropped when a query selects from it)
WITH pairs AS (
  SELECT a.case_id, a.correct AS ca, b.correct AS cb, a.grounded AS ga, b.grounded AS gb,
    a.failure_class AS fa, b.failure_class AS fb
  FROM labels_before a JOIN labels_after b ON a.case_id = b.case_id
),
changes AS (
  SELECT case_id, 'correct -> wrong' AS change, true AS regression FROM pairs WHERE ca AND NOT cb
  UNION ALL SELECT case_id, 'wrong -> correct', false FROM pairs WHERE NOT ca AND cb
  UNION ALL SELECT case_id, 'grounded -> ungrounded', true FROM pairs WHERE ga AND NOT gb
  UNION ALL SELECT case_id, 'ungrounded -> grounded', false FROM pairs WHERE NOT ga AND gb
  UNION ALL SELECT case_id, 'new failure class ' || fb || ' (was ' || coalesce(fa, '-') || ')', false
    FROM pairs WHERE fb IS NOT NULL AND fa IS DISTINCT FROM fb
  UNION ALL SELECT case_id, 'correct -> undecided', true FROM pairs WHERE ca AND cb IS NULL
  UNION ALL SELECT case_id, 'wrong -> undecided', false FROM pairs WHERE NOT ca AND cb IS NULL
  UNION ALL SELECT case_id, 'undecided -> ' || CASE WHEN cb THEN 'correct' ELSE 'wrong' END, false
    FROM pairs WHERE ca IS NULL AND cb IS NOT NULL
  UNION ALL SELECT case_id, 'grounded -> undecided', true FROM pairs WHERE ga AND gb IS NULL
  UNION ALL SELECT case_id, 'ungrounded -> undecided', false FROM pairs WHERE NOT ga AND gb IS NULL
  UNION ALL SELECT case_id, 'undecided -> ' || CASE WHEN gb THEN 'grounded' ELSE 'ungrounded' END, false
    FROM pairs WHERE ga IS NULL AND gb IS NOT NULL
  UNION ALL SELECT DISTINCT a.case_id, 'missing in B', true FROM labels_before a
    WHERE a.case_id NOT IN (SELECT case_id FROM labels_after)
  UNION ALL SELECT DISTINCT b.case_id, 'new in B', false FROM labels_after b
    WHERE b.case_id NOT IN (SELECT case_id FROM labels_before)
)
SELECT case_id, change, regression FROM changes
