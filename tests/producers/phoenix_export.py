"""Arize Phoenix, the real server (`phoenix serve`, loopback, its own temp database),
fed OTLP/HTTP with the requests a real agent exported (a length-prefixed protobuf file as
`groundcheck collect` and the Collector keep them), then read back the way Phoenix users
export spans:
  phoenix-get-spans.jsonl   the client's spans.get_spans(), one span per line
  phoenix-rest-page.json    GET /v1/projects/default/spans, the raw page
  phoenix-otlpv1.json       GET /v1/projects/default/spans/otlpv1, the raw page
  phoenix-dataframe.jsonl   spans.get_spans_dataframe() as pandas JSON lines
"""

import argparse
import json
import os

import httpx

from phoenix_server import running

p = argparse.ArgumentParser()
p.add_argument("--otlp", required=True, nargs="+", help="files of length-prefixed OTLP protobuf requests")
p.add_argument("--out", required=True)
args = p.parse_args()

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
    print(json.dumps({"requests": sent, "spans": len(spans)}))
