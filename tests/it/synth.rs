//! `groundcheck gen`: deterministic, realistic in shape, and scored end to end.

use crate::support::{ok, root, sql_csv, tree};

#[test]
fn gen_is_deterministic_and_realistic() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    for (dir, seed) in [(&a, "3"), (&b, "3"), (&c, "4")] {
        ok(
            &root(),
            &[
                "gen",
                "--tasks",
                "400",
                "--seed",
                seed,
                "--out",
                dir.to_str().unwrap(),
                "--quiet",
            ],
        );
    }
    assert_eq!(tree(&a), tree(&b));
    assert_ne!(tree(&a), tree(&c));
    let q = |sql: &str| sql_csv(&a, &[], sql);
    // 5-12 steps per task, both servers, every step kind the traces know.
    assert_eq!(
        q(
            "SELECT min(n) >= 5 AND max(n) <= 12 AS ok, count(*) AS tasks, count(DISTINCT server) AS servers \
           FROM (SELECT server, trace_id, count(*) AS n FROM steps GROUP BY server, trace_id) AS t"
        ),
        "ok,tasks,servers\ntrue,400,2\n"
    );
    assert_eq!(
        q("SELECT array_to_string(array_sort(array_agg(DISTINCT kind)), ' ') AS kinds FROM steps"),
        "kinds\nanswer assistant clarification reasoning tool_call tool_result user\n"
    );
    // Retries, clarifications and clean passes, CTEs and window functions, stale and
    // missing as_of, paginated results.
    assert_eq!(
        q(
            "SELECT array_to_string(array_sort(array_agg(DISTINCT outcome)), ' ') AS o FROM trace_outcomes"
        ),
        "o\nclarification clean retry\n"
    );
    assert_eq!(
        q(
            "SELECT bool_or(arguments ILIKE '%WITH %') AS cte, bool_or(arguments ILIKE '%OVER (%') AS window_fn, \
           bool_or(arguments ILIKE '%JOIN%') AS joins, bool_or(arguments LIKE '%cursor%') AS pages FROM steps WHERE kind = 'tool_call'"
        ),
        "cte,window_fn,joins,pages\ntrue,true,true,true\n"
    );
    // Mostly distinct SQL, as real traces are (#25): a memo of the analysis must not make
    // the benchmark free. The same task's retry repeats its statement.
    assert_eq!(
        q(
            "SELECT count(DISTINCT json_get_str(arguments, 'sql')) * 10 >= count(*) * 9 AS distinct_sql, \
             bool_or(json_get_str(arguments, 'sql') LIKE 'select%') AS lower, \
             bool_or(json_get_str(arguments, 'sql') LIKE '%' || chr(10) || '%') AS multiline \
             FROM (SELECT DISTINCT trace_id, arguments FROM steps WHERE kind = 'tool_call' AND tool = 'run_sql') AS c"
        ),
        "distinct_sql,lower,multiline\ntrue,true,true\n"
    );
    assert_eq!(
        q(
            "SELECT count(*) FILTER (WHERE as_of IS NULL) > 0 AS missing, \
           count(*) FILTER (WHERE as_of < ts - INTERVAL '1 day') > 0 AS stale FROM steps WHERE kind = 'tool_result'"
        ),
        "missing,stale\ntrue,true\n"
    );
    // It scores end to end.
    let out = ok(
        &root(),
        &[
            "report",
            "--data",
            a.to_str().unwrap(),
            "--out",
            tmp.path().join("out").to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(
        out.contains("cases                                             200                  200"),
        "{out}"
    );
}

/// Every generated case carries the label its generator means (`label`: correct,
/// grounded, failure class, and a note naming the one defect it was given), and the
/// scorer must find exactly that: the intended class and no other, no review reason but
/// "failed, but no failure symptom found" on a task whose only fault is a misread answer.
/// A row here is a generator bug or a scorer bug; the note says which defect was meant.
#[test]
fn gen_labels_are_the_labels_it_means() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("gen");
    ok(
        &root(),
        &[
            "gen",
            "--tasks",
            "3000",
            "--seed",
            "27",
            "--out",
            data.to_str().unwrap(),
            "--quiet",
        ],
    );
    let q = |sql: &str| sql_csv(&data, &[], sql);
    let wrong = q(
        "SELECT l.case_id, l.server, c.label['note'] AS meant, l.human_correct, l.correct, \
         l.human_grounded, l.grounded, l.human_failure_class, array_to_string(l.failure_classes, ',') AS found, \
         array_to_string(l.failure_evidence, ' | ') AS evidence, array_to_string(l.review_reasons, ' | ') AS review \
         FROM labels l JOIN cases c ON c.case_id = l.case_id \
         WHERE l.agrees_with_human IS NOT TRUE \
           OR cardinality(l.failure_classes) <> CASE WHEN l.human_failure_class IS NULL THEN 0 ELSE 1 END \
           OR (l.needs_human_review AND NOT (l.review_reasons = ['failed, but no failure symptom found'] \
               AND NOT l.human_correct AND l.human_failure_class IS NULL)) \
         ORDER BY l.case_id LIMIT 10",
    );
    assert_eq!(
        wrong.lines().count(),
        1,
        "tasks scored otherwise than generated:\n{wrong}"
    );
    // Every defect is in the project, on the servers that can have it.
    assert_eq!(
        q(
            "SELECT server, array_to_string(array_sort(array_agg(DISTINCT label['note'])), '; ') AS defects \
           FROM cases c JOIN tasks t ON t.case_id = c.case_id GROUP BY server ORDER BY server"
        ),
        "server,defects\n\
         generic-warehouse,\"gen: grounded; gen: policy (the call ran as a service account); \
         gen: semantic (a forbidden field or another definition); gen: structural (a count after a one-to-many join); \
         gen: structural (next_cursor not followed); gen: temporal (a result without as_of, or 3 days old); \
         gen: temporal (dates outside the asked window)\"\n\
         task-specific,\"gen: entity (a CRM id where the tool takes cust_id_v2); gen: grounded; \
         gen: policy (the call ran as a service account); gen: semantic (a forbidden field or another definition); \
         gen: temporal (a result without as_of, or 3 days old)\"\n"
    );
}
