#!/usr/bin/env python3
"""groundcheck beside DuckDB on the same generated data, in one run (issue 8).

For each size: `groundcheck gen` writes a project; then, timed with GNU time (wall
seconds and peak resident memory of each process):

  ingest   groundcheck ingest (JSONL -> Parquet, every line validated)
           DuckDB: COPY read_json_auto(...) TO Parquet for cases and traces (no validation)
  report   groundcheck report over the Parquet (label every task: SQL parsing, grounding,
           definitions, freshness, policy, failure classes; then the report), and again
           straight from the JSON lines
           DuckDB: the part of the report plain SQL can do over the same Parquet: per
           server, tasks, correct answers, tool calls, clarification loops, cost, freshness
           the Python reference (benches/reference.py, sqlglot): the grounding columns of
           the labels from the JSON lines, compared with groundcheck's labels.jsonl
           (sizes up to --reference-max; it runs about 1,000 tasks/s)

and prints the ratio (groundcheck / DuckDB) per stage, the scaling from one size to the
next, and the machine. With --write, appends the table to benches/RESULTS.md.

    python3 benches/side_by_side.py --sizes 10000,100000 [--write]

Installs the `duckdb` package from PyPI when it is missing; builds groundcheck in release.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DUCK_INGEST = """
import duckdb, sys
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute(f"COPY (SELECT * FROM read_json_auto('{src}/cases.jsonl')) TO '{dst}/cases.parquet' (FORMAT parquet, COMPRESSION zstd)")
con.execute(f"COPY (SELECT * FROM read_json_auto('{src}/traces/*.jsonl', union_by_name=true)) TO '{dst}/steps.parquet' (FORMAT parquet, COMPRESSION zstd)")
"""

DUCK_REPORT = """
import duckdb, sys
src = sys.argv[1]
con = duckdb.connect()
con.execute(f"CREATE VIEW steps AS SELECT * FROM '{src}/steps.parquet'")
con.execute(f"CREATE VIEW cases AS SELECT * FROM '{src}/cases.parquet'")
rows = con.execute('''
WITH answers AS (
  SELECT server, case_id, try_cast(text AS DOUBLE) AS said
  FROM steps WHERE kind = 'answer'
),
per_task AS (
  SELECT s.server, s.case_id,
    count(*) FILTER (WHERE s.kind = 'tool_call') AS calls,
    count(*) FILTER (WHERE s.kind = 'clarification') AS clarifications,
    sum(coalesce(s.input_tokens, 0)) * 3.0 / 1e6 + sum(coalesce(s.output_tokens, 0)) * 15.0 / 1e6 AS cost,
    bool_and(s.kind <> 'tool_result' OR (s.as_of IS NOT NULL
      AND CAST(s.ts AS TIMESTAMP) - CAST(s.as_of AS TIMESTAMP) <= INTERVAL 24 HOUR)) AS fresh
  FROM steps s GROUP BY s.server, s.case_id
)
SELECT t.server, count(*) AS cases,
  count(*) FILTER (WHERE abs(a.said - c.gold.answer) <= coalesce(c.gold.tolerance, 0)) AS correct,
  sum(t.calls) AS calls, avg(t.clarifications) AS clarification_loops_per_task,
  sum(t.cost) AS cost_total_usd,
  avg(CASE WHEN t.fresh THEN 1.0 ELSE 0.0 END) AS freshness_pass_rate
FROM per_task t JOIN cases c ON c.case_id = t.case_id
LEFT JOIN answers a ON a.server = t.server AND a.case_id = t.case_id
GROUP BY t.server ORDER BY t.server
''').fetchall()
for r in rows:
    print(r)
"""


def timed(cmd, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd under GNU time; returns (seconds, peak MiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        full = ["/usr/bin/time", "-f", "%e %M", "-o", t.name] + cmd
        r = subprocess.run(full, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
        wall, kb = open(t.name).read().split()[-2:]
        return float(wall), int(kb) / 1024.0


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")) / 1024 / 1024
    except OSError:
        mem = 0
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", action="store_true", help="append the results to benches/RESULTS.md")
    ap.add_argument("--keep", action="store_true", help="keep the generated data")
    ap.add_argument("--reference-max", type=int, default=100000,
                    help="run the Python reference at sizes up to this many tasks")
    args = ap.parse_args()
    try:
        import sqlglot  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "sqlglot==30.31.0"])
    try:
        import duckdb  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "duckdb"])
    import duckdb
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    # The whole workspace, as every other build here: one feature set, one set of artifacts.
    subprocess.check_call(["cargo", "build", "--release", "--quiet", "--workspace"], cwd=ROOT)
    gc = os.path.join(target, "release", "groundcheck")
    sizes = [int(s) for s in args.sizes.split(",")]
    work = tempfile.mkdtemp(prefix="gc-bench-")
    results = []
    try:
        for n in sizes:
            proj, pq, duck = (os.path.join(work, f"{n}-{k}") for k in ("jsonl", "parquet", "duck"))
            os.makedirs(duck)
            gen_s, _ = timed([gc, "gen", "--tasks", str(n), "--seed", str(args.seed), "--out", proj, "--quiet"])
            gi = timed([gc, "ingest", "--data", proj, "--out", pq])
            di = timed([sys.executable, "-c", DUCK_INGEST, proj, duck])
            out = os.path.join(work, f"{n}-out")
            gr = timed([gc, "report", "--data", pq, "--out", out])
            gj = timed([gc, "report", "--data", proj, "--out", out + "-jsonl"])
            dr = timed([sys.executable, "-c", DUCK_REPORT, duck])
            ref = None
            if n <= args.reference_max:
                found = os.path.join(work, f"{n}-reference.jsonl")
                compared = os.path.join(work, f"{n}-agreement.json")
                with open(compared, "w") as f:
                    t = timed([sys.executable, os.path.join(HERE, "reference.py"), proj, found,
                               "--compare", os.path.join(out + "-jsonl", "labels.jsonl")], stdout=f)
                agreement = json.load(open(compared))
                ref = (t, agreement)
            results.append((n, gen_s, gi, di, gr, dr, gj, ref))
            print(f"{n:>9} tasks: gen {gen_s:.1f}s | ingest {gi[0]:.1f}s {gi[1]:.0f} MiB vs DuckDB {di[0]:.1f}s {di[1]:.0f} MiB "
                  f"(x{gi[0] / di[0]:.2f}) | report {gr[0]:.1f}s {gr[1]:.0f} MiB (JSONL {gj[0]:.1f}s {gj[1]:.0f} MiB) "
                  f"vs DuckDB {dr[0]:.1f}s {dr[1]:.0f} MiB (x{gr[0] / dr[0]:.2f})"
                  + (f" | reference {ref[0][0]:.1f}s {ref[0][1]:.0f} MiB, agree {ref[1]['agree']}" if ref else ""),
                  flush=True)
            if not args.keep:
                for d in (proj, pq, duck, out, out + "-jsonl"):
                    shutil.rmtree(d, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    lines = [
        f"## {datetime.date.today()} — side by side: {machine()}",
        "",
        f"`python3 benches/side_by_side.py --sizes {args.sizes}` (groundcheck release build, DuckDB {duckdb.__version__};"
        " time is wall seconds, memory is peak RSS of the process).",
        "",
        "| tasks | stage | groundcheck | DuckDB | ratio | groundcheck peak | DuckDB peak |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, gen_s, gi, di, gr, dr, gj, ref in results:
        lines.append(f"| {n:,} | ingest | {gi[0]:.1f} s | {di[0]:.1f} s | {gi[0] / di[0]:.2f} | {gi[1]:.0f} MiB | {di[1]:.0f} MiB |")
        lines.append(f"| {n:,} | label + report | {gr[0]:.1f} s | {dr[0]:.1f} s | {gr[0] / dr[0]:.2f} | {gr[1]:.0f} MiB | {dr[1]:.0f} MiB |")
        lines.append(f"| {n:,} | label + report from JSONL | {gj[0]:.1f} s | | | {gj[1]:.0f} MiB | |")
    refs = [(n, gj, ref) for n, _, _, _, _, _, gj, ref in results if ref]
    if refs:
        lines += ["", "The Python reference (benches/reference.py, sqlglot, memoized parse) on the same JSON lines:"
                  " the grounding columns only, against groundcheck's whole labels from JSONL.", "",
                  "| tasks | reference | peak | groundcheck from JSONL | x faster | tasks agreeing (fields_used, forbidden_used, precision, recall, task_recall) |",
                  "|---|---|---|---|---|---|"]
        for n, gj, (t, a) in refs:
            agree = ", ".join(str(a["agree"][c]) for c in ("fields_used", "forbidden_used", "grounding_precision",
                                                           "grounding_recall", "task_recall"))
            lines.append(f"| {n:,} | {t[0]:.1f} s | {t[1]:.0f} MiB | {gj[0]:.1f} s | {t[0] / gj[0]:.1f} | {agree} of {a['tasks']:,} |")
    for (a, b) in zip(results, results[1:]):
        k = b[0] / a[0]
        lines.append("")
        lines.append(f"Scaling {a[0]:,} -> {b[0]:,} tasks ({k:.0f}x data): ingest {b[2][0] / a[2][0]:.1f}x time, "
                     f"label + report {b[4][0] / a[4][0]:.1f}x time, from JSONL {b[6][0] / a[6][0]:.1f}x "
                     f"(target: at most {1.05 * k:.1f}x).")
    text = "\n".join(lines) + "\n"
    print()
    print(text)
    if args.write:
        with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
