-- label: failure_evidence
-- definition: every trace symptom of seed 000's five failure classes found, one row each,
--   from queries/failures/*.sql (one file per class, each quoting the seed's symptoms)
-- grain: one row per symptom: (run_id, server, case_id, call_id, class, rule, evidence)
-- inputs: failures_entity, failures_semantic, failures_structural, failures_temporal, failures_policy
-- nulls: call_id is NULL for a task-level symptom
SELECT * FROM failures_entity
UNION ALL SELECT * FROM failures_semantic
UNION ALL SELECT * FROM failures_structural
UNION ALL SELECT * FROM failures_temporal
UNION ALL SELECT * FROM failures_policy
