#!/usr/bin/env python3
"""The HTML report's render time and size at several sizes, in one run (issue 24).

For each size: `groundcheck gen` writes a project (JSONL), `groundcheck ingest` turns it
into Parquet, `groundcheck label` labels it; then, timed with GNU time (wall seconds and
peak resident memory):

  html            groundcheck html OUT --data PROJECT: the page with the trace panels
                  (the shown cases' steps read from the project's Parquet)
  html, labels    groundcheck html OUT --no-traces: the page from labels.parquet alone

and the page's size. The labeling itself is not timed here (benches/side_by_side.py).

    python3 benches/html.py --sizes 10000,100000,1000000 [--work DIR] [--write]
"""
import argparse
import datetime
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from side_by_side import machine, timed  # noqa: E402


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--work", default="/tmp/groundcheck-html-bench")
    ap.add_argument("--bin", default=None, help="a release groundcheck (default: build one)")
    ap.add_argument("--write", action="store_true", help="append the table to benches/RESULTS.md")
    a = ap.parse_args()
    root = os.path.dirname(HERE)
    binary = a.bin
    if binary is None:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=root, check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
        binary = os.path.join(target, "release", "groundcheck")
    rows = []
    for n in [int(s) for s in a.sizes.split(",")]:
        base = os.path.join(a.work, str(n))
        jsonl, parquet, out = base + "-jsonl", base + "-parquet", base + "-out"
        if not os.path.exists(os.path.join(jsonl, "cases.jsonl")):
            run([binary, "gen", "--tasks", str(n), "--seed", "1", "--out", jsonl])
        if not os.path.isdir(parquet):
            run([binary, "ingest", "--data", jsonl, "--out", parquet, "-q"])
        if not os.path.exists(os.path.join(out, "labels.parquet")):
            run([binary, "label", "--data", parquet, "--out", out, "-q"])
        page = os.path.join(out, "report.html")
        t, m = timed([binary, "html", out, "--data", parquet, "-o", page])
        size = os.path.getsize(page)
        lone = os.path.join(out, "labels-only.html")
        t2, m2 = timed([binary, "html", out, "--no-traces", "-o", lone])
        size2 = os.path.getsize(lone)
        rows.append((n, t, m, size, t2, m2, size2))
        print(f"{n:>9,} tasks: html {t:.1f} s {m:.0f} MiB {size / 1e6:.2f} MB; "
              f"--no-traces {t2:.1f} s {m2:.0f} MiB {size2 / 1e6:.2f} MB", flush=True)
    table = [
        f"## {datetime.date.today()} — HTML report: {machine()}",
        "",
        f"`python3 benches/html.py --sizes {a.sizes}` (release build; the page holds at most "
        "500 cases, the worst half and a sample; wall seconds and peak RSS of `groundcheck html`).",
        "",
        "| tasks | html (with traces) | peak | page | html --no-traces | peak | page |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, t, m, size, t2, m2, size2 in rows:
        table.append(f"| {n:,} | {t:.1f} s | {m:.0f} MiB | {size / 1e6:.2f} MB | {t2:.1f} s | {m2:.0f} MiB | {size2 / 1e6:.2f} MB |")
    text = "\n".join(table) + "\n"
    print(text)
    if a.write:
        with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
