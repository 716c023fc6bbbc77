-- view: suite_curation
-- definition: seed 000's regression-suite rule: keep a case when at least one
--   configuration (a server in a run) fails it (correct is false), passes it ungrounded
--   (correct, grounded false) or leaves it undecided (NULL: a person must look); drop it
--   when every configuration passes it grounded. A case no configuration ran is kept
--   ('never run'). reasons says why, per configuration
-- grain: (case_id)
-- inputs: labels, cases
-- nulls: none
WITH v AS (
  SELECT case_id, server || '@' || run_id AS config,
    CASE WHEN correct IS NULL OR grounded IS NULL THEN 'undecided'
         WHEN NOT correct THEN 'fails'
         WHEN NOT grounded THEN 'passes ungrounded'
         ELSE 'passes grounded' END AS verdict
  FROM labels
),
per_case AS (
  SELECT c.case_id,
    count(v.config) AS configurations,
    count(v.config) FILTER (WHERE v.verdict <> 'passes grounded') AS keeping,
    string_agg(v.verdict || ' on ' || v.config, '; ' ORDER BY v.config)
      FILTER (WHERE v.verdict <> 'passes grounded') AS why
  FROM cases c LEFT JOIN v ON v.case_id = c.case_id
  GROUP BY c.case_id
)
SELECT case_id,
  configurations = 0 OR keeping > 0 AS keep,
  CAST(CASE WHEN configurations = 0 THEN 'never run'
       WHEN keeping > 0 THEN why
       ELSE 'passes grounded on every configuration (' || CAST(configurations AS VARCHAR) || ')' END AS VARCHAR) AS reasons,
  configurations
FROM per_case
