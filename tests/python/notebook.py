"""A notebook's session with the installed groundcheck wheel, checked against the CLI.

Run by tests/python/run.sh with the wheel installed in a fresh venv beside datafusion-python
from PyPI. Every documented function example runs in datafusion-python's own context and
through the `groundcheck sql` command; the demo's labels and report come from the views
and from `groundcheck report`; both sides write Parquet and must hold the same table. Then
pandas and polars read the results. Exits 1 with every difference listed.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import datafusion
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import groundcheck

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"
problems: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        problems.append(what)


def run(*args: str) -> subprocess.CompletedProcess:
    cmd = [str(groundcheck.command()), *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"`groundcheck {' '.join(args)}` exited {r.returncode}:\n{r.stderr}")
    return r


def examples() -> list[tuple[str, str]]:
    """(function, SQL) of every example in docs/functions.md."""
    text = (ROOT / "docs" / "functions.md").read_text()
    out = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        name = section.split("`")[1]
        m = re.search(r"Example:\n\n```sql\n(.*?)```", section, re.S)
        if m:
            sql = "\n".join(l for l in m.group(1).splitlines() if not l.startswith("--"))
            out.append((name, sql.strip().rstrip(";")))
    return out


def loose_type(t: pa.DataType) -> pa.DataType:
    """The type with what the two writers may legitimately differ on taken out: a
    constant-folded column is `not null` in one and nullable in the other, and a string
    column may come back as a string view."""
    if pa.types.is_string_view(t) or pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, loose_type(f.type)) for f in t])
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        return pa.list_(pa.field("item", loose_type(t.value_type)))
    return t


def loose(table: pa.Table) -> pa.Table:
    schema = pa.schema([pa.field(f.name, loose_type(f.type)) for f in table.schema])
    return table.cast(schema)


def same_table(py: Path, cli: Path, what: str, sort: list[str] | None = None) -> None:
    a, b = loose(pq.read_table(py)), loose(pq.read_table(cli))
    if sort:
        a, b = a.sort_by([(c, "ascending") for c in sort]), b.sort_by([(c, "ascending") for c in sort])
    if a.schema != b.schema:
        check(False, f"{what}: schemas differ\n  python: {a.schema}\n  cli:    {b.schema}")
        return
    same = a.equals(b)
    if not same:
        for name in a.column_names:
            if not a[name].equals(b[name]):
                print(f"  column {name} differs: {a[name].to_pylist()[:3]} / {b[name].to_pylist()[:3]}")
    check(same, f"{what}: {a.num_rows} row(s), {a.num_columns} column(s), the same table")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True, help="the binary cargo built, which the wheel must carry")
    ap.add_argument("--work", required=True, type=Path)
    args = ap.parse_args()
    work: Path = args.work
    (work / "py").mkdir(parents=True, exist_ok=True)
    (work / "cli").mkdir(parents=True, exist_ok=True)

    # 1. The command is the binary cargo built, installed in the venv's scripts.
    exe = groundcheck.command()
    digest = lambda p: hashlib.sha256(Path(p).read_bytes()).hexdigest()
    check(Path(sys.prefix) in exe.parents, f"the command is installed in the venv: {exe}")
    check(digest(exe) == digest(args.binary), "the command is the binary cargo built, byte for byte")
    version = run("--version").stdout
    by_module = subprocess.run(
        [sys.executable, "-m", "groundcheck", "--version"], capture_output=True, text=True, timeout=60
    ).stdout
    check(version == by_module and version.startswith("groundcheck "), f"python -m groundcheck runs it: {version.strip()}")

    # 2. Every function, registered in datafusion-python's own context.
    ctx = datafusion.SessionContext()
    names = groundcheck.register(ctx)
    documented = [name for name, _ in examples()]
    check(len(documented) >= 18, f"{len(documented)} documented examples found")
    missing = [n for n in documented if n not in names]
    check(not missing, f"every documented function is registered ({len(names)} in all){': missing ' + ', '.join(missing) if missing else ''}")
    check("json_get_str" in names, "datafusion-functions-json's functions come along")

    # 3. Each documented example: the same table from the notebook and from the CLI.
    for i, (name, sql) in enumerate(examples()):
        py, cli = work / "py" / f"example{i}.parquet", work / "cli" / f"example{i}.parquet"
        ctx.sql(sql).write_parquet(str(py))
        run("sql", "--data", str(DEMO), sql, "-o", str(cli))
        same_table(py, cli, f"example of {name}")

    # 4. The demo project: every table and view, then labels and report as the CLI writes them.
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        views = groundcheck.views(ctx, data=DEMO)
    check("labels" in views and "report" in views, f"{len(views)} views registered, labels and report among them")
    print(f"     notes: {[str(n.message) for n in notes]}")
    got = {r["name"]: r["value"] for r in ctx.sql("SELECT name, value FROM information_schema.df_settings").to_pylist()}
    wrong = [k for k, v in groundcheck.options() if got.get(k) != v]
    check(not wrong, f"the views' session options are set: {groundcheck.options()}")

    out = work / "cli" / "demo"
    run("report", "--data", str(DEMO), "--out", str(out), "--quiet")
    key = ["run_id", "server", "case_id"]
    ctx.sql("SELECT * FROM labels").write_parquet(str(work / "py" / "labels.parquet"))
    same_table(work / "py" / "labels.parquet", out / "labels.parquet", "labels (views) = labels.parquet (groundcheck report)", key)
    ctx.sql("SELECT * FROM report").write_parquet(str(work / "py" / "report.parquet"))
    same_table(work / "py" / "report.parquet", out / "report.parquet", "report (views) = report.parquet (groundcheck report)", ["server"])

    # 5. pandas and polars over the results: the seed's point, two servers at the same pass rate.
    df = ctx.sql(
        "SELECT server, count(*) AS cases, count(*) FILTER (WHERE correct) AS correct, "
        "count(*) FILTER (WHERE correct AND grounded) AS correct_and_grounded "
        "FROM labels GROUP BY server ORDER BY server"
    )
    frame = df.to_pandas()
    check(isinstance(frame, pd.DataFrame), "pandas: a DataFrame")
    check(
        frame.to_dict("records")
        == [
            {"server": "generic-warehouse", "cases": 40, "correct": 36, "correct_and_grounded": 25},
            {"server": "task-specific", "cases": 40, "correct": 36, "correct_and_grounded": 36},
        ],
        f"pandas: the same pass rate, not the same grounding:\n{frame}",
    )
    polars = pl.from_arrow(ctx.sql("SELECT server, failure_class FROM labels WHERE correct AND NOT grounded").to_arrow_table())
    by_class = polars.group_by("failure_class").len().sort("failure_class")
    check(
        polars.height == 11 and set(polars["server"]) == {"generic-warehouse"},
        f"polars: the 11 right answers for the wrong reason are all the generic server's:\n{by_class}",
    )
    check(isinstance(ctx.sql("SELECT 1").to_arrow_table(), pa.Table), "pyarrow: a Table")

    # 6. Nothing silent: a project that is not there, a line that does not fit.
    try:
        groundcheck.views(datafusion.SessionContext(), data=work / "no-such-project")
        check(False, "a missing project raises")
    except ValueError as e:
        check("no-such-project" in str(e), f"a missing project raises ValueError: {e}")
    bad = work / "bad"
    bad.mkdir(exist_ok=True)
    (bad / "cases.jsonl").write_text((DEMO / "cases.jsonl").read_text().splitlines()[0] + "\n{\"case_id\": 7}\n")
    c2 = datafusion.SessionContext()
    groundcheck.views(c2, data=bad)
    try:
        c2.sql("SELECT count(*) FROM cases").collect()
        check(False, "a bad line raises when read")
    except Exception as e:  # datafusion-python raises its own exception type
        msg = str(e)
        check("cases.jsonl:2" in msg and "case_id" in msg, f"a bad line raises naming file, line and field: {msg.splitlines()[0][:200]}")

    if problems:
        print(f"\n{len(problems)} problem(s)")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
