#!/usr/bin/env python3
"""An independent pure-Python scorer of groundcheck's grounding labels (issue 25).

Written from the seed's definition, not from our SQL: for every task of a project
(JSON lines, as `groundcheck gen` writes it), the fields each tool call read, then the
grounding figures of labels.jsonl:

  fields_used          every field a call read (catalog `table.column`)
  forbidden_used       those of them in the gold record's forbidden_fields
  grounding_precision  mean over calls that read fields of |read ∩ required| / |read|
  grounding_recall     mean over those calls of |read ∩ required| / |required|
                       (0 when no call read a field; null without required fields)
  task_recall          |required ∩ all read| / |required|

A call's fields: its SQL argument (tool_context's `sql_argument`, in its dialect) parsed
by sqlglot, qualified against the catalog, every column resolved through its scope to
the table it comes from; a tool without SQL reads what tool_context declares. Calls
whose result is an error are left out. SQL that does not parse reads nothing. The parse
is memoized on the SQL text, as a harness in the seed's style would.

    python3 benches/reference.py DATA OUT.jsonl [--compare labels.jsonl]

With --compare, prints how many tasks agree on each column with groundcheck's labels and
a few of the tasks that do not (a disagreement is a finding for one of the two).
"""
import argparse
import functools
import glob
import json
import os
import sys

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

COLUMNS = ["fields_used", "forbidden_used", "grounding_precision", "grounding_recall", "task_recall"]


def read_jsonl(path):
    with open(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def catalog_schema(data):
    schema = {}
    for row in read_jsonl(os.path.join(data, "context", "catalog.jsonl")):
        schema.setdefault(row["table_name"].lower(), {})[row["column_name"].lower()] = row.get("data_type") or "VARCHAR"
    return schema


@functools.lru_cache(maxsize=None)
def sql_fields(sql, dialect, schema_key):
    schema = SCHEMAS[schema_key]
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        tree = qualify(tree, schema=schema, dialect=dialect, validate_qualify_columns=False, identify=False)
    except Exception:  # the SQL does not parse or qualify: it read nothing we can name
        return frozenset()
    fields = set()
    for scope in traverse_scope(tree):
        for column in scope.columns:
            source = scope.sources.get(column.table)
            if isinstance(source, exp.Table):
                table = source.name.lower()
                name = column.name.lower()
                if name in schema.get(table, {}):
                    fields.add(f"{table}.{name}")
    return frozenset(fields)


SCHEMAS = {}


def score(data):
    SCHEMAS["catalog"] = catalog_schema(data)
    tools = {(r["server"], r["tool"]): r for r in read_jsonl(os.path.join(data, "context", "tool_context.jsonl"))}
    cases = {c["case_id"]: c for c in read_jsonl(os.path.join(data, "cases.jsonl"))}
    calls = {}
    errors = set()
    tasks = set()
    for path in sorted(glob.glob(os.path.join(data, "traces", "*.jsonl"))):
        for s in read_jsonl(path):
            if s.get("case_id") is None:
                continue
            key = (s["run_id"], s["server"], s["case_id"])
            tasks.add(key)
            ids = (s["run_id"], s["server"], s["trace_id"], s.get("call_id"))
            if s["kind"] == "tool_call":
                calls[ids] = (key, s)
            elif s["kind"] == "tool_result" and s.get("is_error"):
                errors.add(ids)
    per_task = {}
    for ids, (key, s) in calls.items():
        if ids in errors:
            continue
        ctx = tools.get((s["server"], s["tool"]))
        args = s.get("arguments") or {}
        if ctx and ctx.get("sql_argument"):
            sql = args.get(ctx["sql_argument"]) if isinstance(args, dict) else None
            fields = sql_fields(sql, ctx.get("dialect") or None, "catalog") if isinstance(sql, str) else frozenset()
        elif ctx and ctx.get("fields") is not None:
            fields = frozenset(ctx["fields"])
        else:
            fields = frozenset(f"{s['tool']}.{a}" for a in args) if isinstance(args, dict) else frozenset()
        per_task.setdefault(key, []).append(fields)
    out = []
    for key in sorted(tasks):
        gold = (cases.get(key[2]) or {}).get("gold") or {}
        required = list(gold.get("required_fields") or [])
        forbidden = set(gold.get("forbidden_fields") or [])
        reading = [f for f in per_task.get(key, []) if f]
        used = set().union(*reading) if reading else set()
        req = set(required)
        precision = round(sum(len(f & req) / len(f) for f in reading) / len(reading), 12) if reading else None
        if not required:
            recall = None
            task_recall = None
        else:
            recall = round(sum(len(f & req) / len(required) for f in reading) / len(reading), 12) if reading else 0.0
            task_recall = round(len(req & used) / len(req), 12)
        out.append({
            "run_id": key[0], "server": key[1], "case_id": key[2],
            "fields_used": sorted(used),
            "forbidden_used": sorted(used & forbidden),
            "grounding_precision": precision,
            "grounding_recall": recall,
            "task_recall": task_recall,
        })
    return out


def compare(mine, labels_path, show=3):
    theirs = {(r["run_id"], r["server"], r["case_id"]): r for r in read_jsonl(labels_path)}
    agree = {c: 0 for c in COLUMNS}
    shown = {c: [] for c in COLUMNS}
    missing = 0
    for r in mine:
        t = theirs.get((r["run_id"], r["server"], r["case_id"]))
        if t is None:
            missing += 1
            continue
        for c in COLUMNS:
            a, b = r[c], t.get(c)
            same = (a is None and b is None) or (a is not None and b is not None and (
                abs(a - b) < 1e-9 if isinstance(a, float) or isinstance(b, float) else a == b))
            if same:
                agree[c] += 1
            elif len(shown[c]) < show:
                shown[c].append((r["case_id"], r["server"], a, b))
    return {"tasks": len(mine), "not_in_labels": missing, "agree": agree, "examples": shown}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--compare", help="labels.jsonl to compare with")
    a = ap.parse_args()
    rows = score(a.data)
    with open(a.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    if a.compare:
        json.dump(compare(rows, a.compare), sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
