"""Arize Phoenix, the real server (`phoenix serve`, loopback, its own temp database),
fed OTLP/HTTP with the requests a real agent exported (a length-prefixed protobuf file as
`groundcheck collect` and the Collector keep them), then read back the way Phoenix users
export spans:
  phoenix-get-spans.jsonl   the client's spans.get_spans(), one span per line
  phoenix-rest-page.json    GET /v1/projects/default/spans, the raw page
  phoenix-otlpv1.json       GET /v1/projects/default/spans/otlpv1, the raw page
  phoenix-dataframe.jsonl   spans.get_spans_dataframe() as pandas JSON lines
  phoenix-trace-dataset.parquet
                            that dataframe saved as Phoenix saves a trace dataset
                            (phoenix.trace.TraceDataset(df).save(), Parquet)
With --annotate LABELS --groundcheck BIN, the round trip of issue #47 on the same server
(one Phoenix start serves both): `groundcheck annotate LABELS --phoenix URL` run twice
(the second run must update, not add), then the annotations read back with Phoenix's own
client into
  phoenix-annotations.jsonl one line per annotation {span_id, name, label, score,
                            explanation, identifier, kind}, sorted, then
                            {"annotations": N, "runs": [stderr of each annotate run]}
  phoenix-trace-annotations.jsonl
                            the trace annotations, {trace_id, name, …}, sorted
With --screenshot PNG as well, the first annotated trace opened in Phoenix's own UI in
Chromium: PNG, and what the page shows in
  phoenix-ui.json           {trace_id, trace_header (text), rows: the span's annotations
                            table as Phoenix renders it}
"""

import argparse
import json
import os
import shutil
import tempfile
import subprocess

import httpx

from phoenix_server import running

p = argparse.ArgumentParser()
p.add_argument("--otlp", required=True, nargs="+", help="files of length-prefixed OTLP protobuf requests")
p.add_argument("--out", required=True)
p.add_argument("--annotate", help="a labels folder to annotate Phoenix's spans with")
p.add_argument("--groundcheck", help="the groundcheck binary (with --annotate)")
p.add_argument("--screenshot", metavar="PNG",
               help="with --annotate: open the first annotated trace in Phoenix's UI in Chromium "
                    "(tests/browser/phoenix.mjs), save PNG, and write what it shows to phoenix-ui.json")
args = p.parse_args()


def annotate(base, client, spans):
    runs = []
    for _ in range(2):
        r = subprocess.run([args.groundcheck, "annotate", args.annotate, "--phoenix", base],
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
    with open(os.path.join(args.out, "phoenix-annotations.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        f.write(json.dumps({"annotations": len(rows), "runs": runs}) + "\n")
    # Trace annotations: Phoenix's REST API (its client has no reader for them).
    page = httpx.get(base + "/v1/projects/default/trace_annotations",
                     params={"identifier": "groundcheck", "limit": 1000}, timeout=30)
    page.raise_for_status()
    rows = []
    for a in page.json()["data"]:
        res = a.get("result") or {}
        rows.append({"trace_id": a["trace_id"], "name": a["name"], "label": res.get("label"),
                     "score": res.get("score"), "explanation": res.get("explanation"),
                     "identifier": a.get("identifier"), "kind": a.get("annotator_kind")})
    rows.sort(key=lambda r: (r["trace_id"], r["name"]))
    with open(os.path.join(args.out, "phoenix-trace-annotations.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def screenshot(base):
    traces = [json.loads(l)["trace_id"]
              for l in open(os.path.join(args.out, "phoenix-trace-annotations.jsonl"))]
    trace = sorted(traces)[0]
    projects = httpx.get(base + "/v1/projects", timeout=30).json()["data"]
    project = next(p["id"] for p in projects if p["name"] == "default")
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "browser", "phoenix.mjs")
    r = subprocess.run(["node", script, base, project, trace, args.screenshot],
                       capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        raise SystemExit(f"phoenix.mjs exited {r.returncode}: {r.stderr[-3000:]}")
    with open(os.path.join(args.out, "phoenix-ui.json"), "w") as f:
        f.write(json.dumps({"trace_id": trace, **json.loads(r.stdout)}) + "\n")


with running(args.otlp) as (base, client, spans, sent):
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "phoenix-get-spans.jsonl"), "w") as f:
        for s in spans:
            f.write(json.dumps(s) + "\n")
    page = httpx.get(base + "/v1/projects/default/spans", params={"limit": 1000}, timeout=30)
    page.raise_for_status()
    open(os.path.join(args.out, "phoenix-rest-page.json"), "w").write(page.text)
    otlp = httpx.get(base + "/v1/projects/default/spans/otlpv1", params={"limit": 1000}, timeout=30)
    otlp.raise_for_status()
    open(os.path.join(args.out, "phoenix-otlpv1.json"), "w").write(otlp.text)
    df = client.spans.get_spans_dataframe(project_identifier="default", limit=10000)
    df.to_json(os.path.join(args.out, "phoenix-dataframe.jsonl"), orient="records", lines=True)
    from phoenix.trace import TraceDataset
    with tempfile.TemporaryDirectory() as saved:
        ds = TraceDataset(df)
        ds.save(saved)
        (parquet,) = [f for f in os.listdir(saved) if f.endswith(".parquet")]
        shutil.move(os.path.join(saved, parquet), os.path.join(args.out, "phoenix-trace-dataset.parquet"))
    if args.annotate:
        annotate(base, client, spans)
        if args.screenshot:
            screenshot(base)
    print(json.dumps({"requests": sent, "spans": len(spans)}))
