-- metric: oracle_verdicts
-- definition: seed 000's external oracle ("you point it at the source system's permission
--   check"), read from its answers as they came (external_policy, filled by --policy-oracle;
--   the protocol is docs/policy-oracle.md). An answer is a JSON object with allowed_rows (the
--   indexes of the rows sent that the user may see) and allowed_columns. Each row sent whose
--   index is not in allowed_rows is not allowed, counted once as "N of M rows not allowed",
--   and each column sent that is not in allowed_columns is one violation. Our choice: an
--   index outside the rows sent, or given twice, allows nothing more. A call without an
--   answer (the oracle exited, timed out or could not be read; `failure` says which) or
--   whose answer is not such an object is unsure: it goes to human review, never counted
--   as allowed.
-- grain: (run_id, server, trace_id, call_id): one row per call the oracle was asked about
-- inputs: external_policy
-- nulls: none; violations and unsure are empty lists when there is nothing to say
WITH answers AS (
  SELECT run_id, server, trace_id, call_id, rows, columns, answer, failure,
    json_get_array(answer, 'allowed_rows') AS allowed_rows,
    json_get_array(answer, 'allowed_columns') AS allowed_columns,
    concat(run_id, '/', server, '/', trace_id, '/', call_id) AS name
  FROM external_policy
),
rows_allowed AS (
  SELECT run_id, server, trace_id, call_id, count(DISTINCT i) AS n
  FROM (SELECT run_id, server, trace_id, call_id, rows, json_get_int(r) AS i
        FROM (SELECT run_id, server, trace_id, call_id, rows, unnest(allowed_rows) AS r FROM answers) u) x
  WHERE i >= 0 AND i < rows
  GROUP BY run_id, server, trace_id, call_id
),
columns_allowed AS (
  SELECT run_id, server, trace_id, call_id, array_agg(json_get_str(c)) AS allowed
  FROM (SELECT run_id, server, trace_id, call_id, unnest(allowed_columns) AS c FROM answers) u
  GROUP BY run_id, server, trace_id, call_id
),
columns_denied AS (
  SELECT s.run_id, s.server, s.trace_id, s.call_id,
    array_agg(concat('column ', s.c, ' not allowed by the policy oracle') ORDER BY s.c) AS denied
  FROM (SELECT run_id, server, trace_id, call_id, unnest(columns) AS c FROM answers
        WHERE allowed_columns IS NOT NULL AND allowed_rows IS NOT NULL) s
  LEFT JOIN columns_allowed a ON a.run_id = s.run_id AND a.server = s.server
    AND a.trace_id = s.trace_id AND a.call_id = s.call_id
  WHERE NOT coalesce(array_has(a.allowed, s.c), false)
  GROUP BY s.run_id, s.server, s.trace_id, s.call_id
)
SELECT a.run_id, a.server, a.trace_id, a.call_id,
  CASE WHEN a.failure IS NULL AND a.allowed_rows IS NOT NULL AND a.allowed_columns IS NOT NULL THEN
    array_concat(
      CASE WHEN a.rows > coalesce(r.n, 0)
        THEN [concat(CAST(a.rows - coalesce(r.n, 0) AS VARCHAR), ' of ', CAST(a.rows AS VARCHAR), ' rows not allowed by the policy oracle')]
        ELSE CAST([] AS VARCHAR[]) END,
      coalesce(d.denied, CAST([] AS VARCHAR[])))
  ELSE CAST([] AS VARCHAR[]) END AS violations,
  CASE
    WHEN a.failure IS NOT NULL THEN [a.failure]
    WHEN json_length(a.answer) IS NULL
      THEN [concat('policy oracle answered a line that is not a JSON object: ', a.answer, ' (call ', a.name, ')')]
    WHEN a.allowed_rows IS NULL OR a.allowed_columns IS NULL
      THEN [concat('policy oracle answered without allowed_rows and allowed_columns: ', a.answer, ' (call ', a.name, ')')]
    ELSE CAST([] AS VARCHAR[])
  END AS unsure
FROM answers a
LEFT JOIN rows_allowed r ON r.run_id = a.run_id AND r.server = a.server AND r.trace_id = a.trace_id AND r.call_id = a.call_id
LEFT JOIN columns_denied d ON d.run_id = a.run_id AND d.server = a.server AND d.trace_id = a.trace_id AND d.call_id = a.call_id
