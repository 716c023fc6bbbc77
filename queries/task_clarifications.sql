-- view: task_clarifications
-- definition: trace_clarifications summed over the task's traces: the clarification
--   turns labels reports. A view of its own for the reason task_policy is (computed once
--   per chunk into memory).
-- grain: (run_id, server, case_id)
-- inputs: trace_clarifications
-- nulls: none; traces without a case_id belong to no task and are left out
SELECT run_id, server, case_id, sum(clarification_turns) AS clarification_turns
FROM trace_clarifications WHERE case_id IS NOT NULL GROUP BY run_id, server, case_id
