#!/usr/bin/env python3
"""Pairs of (BFCL case, model output) judged by BFCL's own AST checker.

Reads the question and possible-answer files bfcl-eval ships, takes the first N cases of
each single-turn Python category, and builds model outputs from the possible answers:
the answer itself and systematic perturbations of it (a value outside the acceptable
ones, an optional parameter left out, a required one left out, an extra parameter, a
wrong type, a wrong function among several, calls reordered or dropped). Each kind of
output is one "model" (one server once imported). Writes into OUT:

  questions.json, answers.json   the cases taken (JSON lines, BFCL's own format)
  result-KIND.json               the outputs, as BFCL result files (FC format)
  verdicts.tsv                   kind, id, valid (true/false), BFCL's error_type

The checker is BFCL's (bfcl_eval/eval_checker/ast_eval/ast_checker.py), run as the
leaderboard runs it for a function-calling model. Its module imports the model registry
(bfcl_eval.constants.model_config, which imports every vendor's client) only to ask
whether a model's API rewrites dots in function names; that module is replaced by one
entry, a model that does not (the outputs here keep the names as given).

Usage: agree.py OUT [N]
"""
import ast
import copy
import json
import re
import os
import sys
import types

OUT = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 60

# The model registry, reduced to one model that keeps dots in names.
stub = types.ModuleType("bfcl_eval.constants.model_config")
stub.MODEL_CONFIG_MAPPING = {"groundcheck": types.SimpleNamespace(underscore_to_dot=False)}
sys.modules["bfcl_eval.constants.model_config"] = stub

import bfcl_eval  # noqa: E402
from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402

DATA = os.path.join(os.path.dirname(bfcl_eval.__file__), "data")
CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple"]


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def concrete(v):
    """A value a model would send for an acceptable value: a dict (or list of dicts) of
    acceptable lists, as BFCL writes them for dict parameters, takes each key's first."""
    if isinstance(v, dict) and v and all(isinstance(x, list) for x in v.values()):
        return {k: concrete(x[0]) for k, x in v.items() if x and x[0] != ""}
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return [concrete(x) for x in v]
    return v


def first_value(values):
    """The first acceptable value; None when only "" (leave it out) is there."""
    for v in values:
        if v != "":
            return concrete(v)
    return None


def answer_call(gt):
    name, params = next(iter(gt.items()))
    args = {}
    for p, values in params.items():
        v = first_value(values)
        if v is not None:
            args[p] = v
    return {name: args}


def other_value(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1000
    if isinstance(v, float):
        return v + 1.5
    if isinstance(v, str):
        return v + " zz"
    if isinstance(v, list):
        return v + ["zz-extra"]
    if isinstance(v, dict):
        return dict(v, zz_extra="zz")
    return "zz"


def wrong_type(v):
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return 12345
    if isinstance(v, list):
        return "not a list"
    if isinstance(v, dict):
        return ["not", "a", "dict"]
    return 0


def variants(case_id, question, gt):
    """(kind, output) pairs for one case."""
    calls = [answer_call(g) for g in gt]
    out = [("answer", calls)]
    first = calls[0]
    name, args = next(iter(first.items()))
    params = next(iter(gt[0].values()))
    given = [p for p in args]
    if given:
        p = given[0]
        c = copy.deepcopy(calls)
        c[0][name][p] = other_value(args[p])
        out.append(("wrong_value", c))
        c = copy.deepcopy(calls)
        c[0][name][p] = wrong_type(args[p])
        out.append(("wrong_type", c))
        c = copy.deepcopy(calls)
        del c[0][name][given[-1]]
        out.append(("omit_given", c))
    optional = [p for p, vs in params.items() if "" in vs and p not in args]
    schema = next((f for f in question["function"] if f["name"] == name), None)
    props = (schema or {}).get("parameters", {}).get("properties", {})
    unused = [p for p in props if p not in args and p not in optional]
    c = copy.deepcopy(calls)
    c[0][name]["zz_extra"] = 1
    out.append(("extra_param", c))
    if unused:
        # A parameter the function has but the possible answer does not list.
        c = copy.deepcopy(calls)
        v = props[unused[0]]
        c[0][name][unused[0]] = {"integer": 7, "number": 7.5, "float": 7.5, "boolean": True}.get(v.get("type"), "x")
        out.append(("unlisted_param", c))
    others = [f["name"] for f in question["function"] if f["name"] != name]
    c = copy.deepcopy(calls)
    c[0] = {others[0] if others else name + "_v2": args}
    out.append(("wrong_function", c))
    # Strings as people write them: case and punctuation that BFCL standardizes away.
    strs = [p for p, v in args.items() if isinstance(v, str)]
    if strs:
        c = copy.deepcopy(calls)
        c[0][name][strs[0]] = args[strs[0]].upper().replace(" ", "  ")
        out.append(("string_case", c))
    ints = [p for p, v in args.items() if isinstance(v, int) and not isinstance(v, bool)]
    floats = [p for p, vs in params.items() if props.get(p, {}).get("type") == "float" and p in ints]
    if floats:
        c = copy.deepcopy(calls)
        c[0][name][floats[0]] = float(args[floats[0]])
        out.append(("int_as_float", c))
    if len(calls) > 1:
        out.append(("reordered", list(reversed(calls))))
        out.append(("one_dropped", calls[:-1]))
        out.append(("one_twice", calls + [calls[0]]))
    return out


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def python_syntax(output):
    """`[f(a=1, b='x')]`, or None when a name or key is not a Python identifier."""
    parts = []
    for call in output:
        for name, args in call.items():
            if not NAME.match(name) or not all(k.isidentifier() for k in args):
                return None
            parts.append(f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})")
    return "[" + ", ".join(parts) + "]"


def decode_python(text):
    """BFCL's ast decoding of a prompting model's answer (its resolve_ast_call, for
    keyword arguments whose values are literals)."""
    def name_of(f):
        return f.id if isinstance(f, ast.Name) else name_of(f.value) + "." + f.attr
    tree = ast.parse(text, mode="eval").body
    return [{name_of(c.func): {k.arg: ast.literal_eval(k.value) for k in c.keywords}} for c in tree.elts]


def main():
    os.makedirs(OUT, exist_ok=True)
    questions, answers, by_kind, verdicts = [], [], {}, []
    for cat in CATEGORIES:
        qs = lines(os.path.join(DATA, f"BFCL_v4_{cat}.json"))[:N]
        gts = {a["id"]: a for a in lines(os.path.join(DATA, "possible_answer", f"BFCL_v4_{cat}.json"))}
        for q in qs:
            a = gts[q["id"]]
            questions.append(q)
            answers.append(a)
            for kind, output in variants(q["id"], q, a["ground_truth"]):
                r = ast_checker(q["function"], output, a["ground_truth"], Language.PYTHON, cat, "groundcheck")
                by_kind.setdefault(kind, []).append(
                    {"id": q["id"], "result": [{n: json.dumps(p)} for c in output for n, p in c.items()]})
                verdicts.append((kind, q["id"], "true" if r["valid"] else "false", r.get("error_type", "")))
                # The same output as a prompting model writes it: Python call syntax made by
                # Python's repr, decoded by Python's ast as BFCL's decoder does, then checked.
                text = python_syntax(output)
                if text is not None:
                    decoded = decode_python(text)
                    r = ast_checker(q["function"], decoded, a["ground_truth"], Language.PYTHON, cat, "groundcheck")
                    by_kind.setdefault(kind + "_py", []).append({"id": q["id"], "result": text})
                    verdicts.append((kind + "_py", q["id"], "true" if r["valid"] else "false", r.get("error_type", "")))
    with open(os.path.join(OUT, "questions.json"), "w") as f:
        f.writelines(json.dumps(q) + "\n" for q in questions)
    with open(os.path.join(OUT, "answers.json"), "w") as f:
        f.writelines(json.dumps(a) + "\n" for a in answers)
    for kind, rows in by_kind.items():
        with open(os.path.join(OUT, f"result-{kind}.json"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    with open(os.path.join(OUT, "verdicts.tsv"), "w") as f:
        f.writelines("\t".join(v) + "\n" for v in verdicts)
    print(f"{len(questions)} cases, {len(verdicts)} pairs, {sum(v[2] == 'true' for v in verdicts)} valid")


main()
