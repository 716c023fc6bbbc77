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
            "SELECT bool_or(arguments LIKE '%WITH %') AS cte, bool_or(arguments LIKE '%OVER (%') AS window_fn, \
           bool_or(arguments LIKE '%JOIN%') AS joins, bool_or(arguments LIKE '%cursor%') AS pages FROM steps WHERE kind = 'tool_call'"
        ),
        "cte,window_fn,joins,pages\ntrue,true,true,true\n"
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
