-- report: label_flips
-- definition: what `report diff A B` and `--fail-on-regression` judge: per case labeled
--   on both sides (labels_before: A, labels_after: B), each label that changed:
--   correct -> wrong and grounded -> ungrounded are regressions (a case the suite used to
--   pass for the right reason no longer does); wrong -> correct, ungrounded -> grounded
--   and a new failure class are changes to read, not regressions. A NULL (undecided)
--   side flips nothing. In an ordinary session both sides are empty: `report diff` fills
--   them with the two sides' labels.
-- grain: (case_id, change)
-- inputs: labels_before, labels_after
-- nulls: none
WITH pairs AS (
  SELECT a.case_id, a.correct AS ca, b.correct AS cb, a.grounded AS ga, b.grounded AS gb,
    a.failure_class AS fa, b.failure_class AS fb
  FROM labels_before a JOIN labels_after b ON a.case_id = b.case_id
),
changes AS (
  SELECT case_id, 1 AS n, 'correct -> wrong' AS change, true AS regression FROM pairs WHERE ca AND NOT cb
  UNION ALL SELECT case_id, 2, 'wrong -> correct', false FROM pairs WHERE NOT ca AND cb
  UNION ALL SELECT case_id, 3, 'grounded -> ungrounded', true FROM pairs WHERE ga AND NOT gb
  UNION ALL SELECT case_id, 4, 'ungrounded -> grounded', false FROM pairs WHERE NOT ga AND gb
  UNION ALL SELECT case_id, 5, 'new failure class ' || fb || ' (was ' || coalesce(fa, '-') || ')', false
    FROM pairs WHERE fb IS NOT NULL AND fa IS DISTINCT FROM fb
)
SELECT case_id, change, regression FROM changes ORDER BY case_id, n
