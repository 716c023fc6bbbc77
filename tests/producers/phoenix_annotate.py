"""The round trip into Phoenix (issue #47): a real Phoenix server fed the agent's OTLP
requests; `groundcheck annotate LABELS --phoenix URL` run twice (the second run must
update, not add); then the annotations read back with Phoenix's own client. Prints one
JSON line per annotation {span_id, name, label, score, explanation, identifier, kind},
sorted, then {"annotations": N, "runs": [stderr of each annotate run]}.
Usage: phoenix_annotate.py --otlp FILES --labels DIR --groundcheck BIN"""

import argparse
import json
import subprocess

from phoenix_server import running

p = argparse.ArgumentParser()
p.add_argument("--otlp", required=True, nargs="+")
p.add_argument("--labels", required=True)
p.add_argument("--groundcheck", required=True)
args = p.parse_args()

with running(args.otlp) as (base, client, spans, _):
    runs = []
    for _ in range(2):
        r = subprocess.run([args.groundcheck, "annotate", args.labels, "--phoenix", base],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise SystemExit(f"annotate exited {r.returncode}: {r.stderr}")
        runs.append(r.stderr.strip())
    ids = [s["context"]["span_id"] for s in spans]
    got = client.spans.get_span_annotations(span_ids=ids, project_identifier="default",
                                            limit=10000, timeout=30)
    rows = []
    for a in got:
        a = a if isinstance(a, dict) else a.model_dump()
        res = a.get("result") or {}
        rows.append({"span_id": a["span_id"], "name": a["name"], "label": res.get("label"),
                     "score": res.get("score"), "explanation": res.get("explanation"),
                     "identifier": a.get("identifier"), "kind": a.get("annotator_kind")})
    rows.sort(key=lambda r: (r["span_id"], r["name"]))
    for r in rows:
        print(json.dumps(r))
    print(json.dumps({"annotations": len(rows), "runs": runs}))
