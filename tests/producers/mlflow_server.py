"""A real MLflow tracking server (`mlflow server`, loopback, a SQLite store in a temp
folder), for the round trip of issue #47: producer → MLflow → groundcheck → MLflow.

  mlflow_server.py serve            starts it, prints "listening URL" once it answers,
                                    then runs the commands below read from stdin (a line
                                    each, tab-separated, without URL; `assessments` takes
                                    a FILE to write), answering "ok" or "error …" (one
                                    Python with MLflow's client loaded for them all), and
                                    stops it when stdin closes
  mlflow_server.py assessments URL  prints every assessment on the traces of experiment 0
                                    as JSON lines, read with MLflow's own client
  mlflow_server.py export URL FILE  writes every trace of experiment 0 as MLflow exports
                                    it (`Trace.to_json()`), a trace a line
  mlflow_server.py delete URL TRACE...
                                    deletes those traces from experiment 0
  mlflow_server.py stale URL TRACE SPAN
                                    logs, with MLflow's client, what an earlier labeling
                                    could have left on SPAN (a stale groundcheck.correct
                                    with an extra metadata key, a second copy of it, a
                                    groundcheck.obsolete) and a person's groundcheck.correct
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def serve():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    work = tempfile.mkdtemp(prefix="mlflow-")
    log = open(os.path.join(work, "mlflow.log"), "w")
    server = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), "mlflow"), "server",
         "--backend-store-uri", f"sqlite:///{work}/mlflow.db",
         "--default-artifact-root", f"{work}/artifacts",
         "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(base + "/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None:
                sys.exit(f"mlflow exited: see {log.name}")
            time.sleep(0.5)
        else:
            sys.exit(f"mlflow did not start in 120 s: see {log.name}")
        print(f"listening {base}", flush=True)
        commands = {"export": lambda a: export(base, *a), "assessments": lambda a: assessments(base, *a),
                    "stale": lambda a: stale(base, *a), "delete": lambda a: delete(base, a)}
        for line in sys.stdin:
            cmd, *rest = line.rstrip("\n").split("\t")
            try:
                commands[cmd](rest)
                print("ok", flush=True)
            except Exception as e:  # the test shows it
                print(f"error {cmd}: {e!r}".replace("\n", " "), flush=True)
    finally:
        os.killpg(server.pid, 15)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)


def assessments(base, path=None):
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=base)
    out = open(path, "w") if path else sys.stdout
    for t in client.search_traces(locations=["0"], max_results=500):
        for a in t.info.assessments:
            out.write(json.dumps({
                "trace_id": t.info.trace_id, "span_id": a.span_id, "name": a.name,
                "value": a.feedback.value if a.feedback else None, "rationale": a.rationale,
                "metadata": a.metadata, "source_type": a.source.source_type,
                "source_id": a.source.source_id, "valid": a.valid,
            }) + "\n")
    if path:
        out.close()


def export(base, path):
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=base)
    traces = client.search_traces(locations=["0"], max_results=500)
    with open(path, "w") as f:
        for t in sorted(traces, key=lambda t: t.info.trace_id):
            f.write(t.to_json() + "\n")


def delete(base, traces):
    from mlflow import MlflowClient

    MlflowClient(tracking_uri=base).delete_traces(experiment_id="0", trace_ids=traces)


def stale(base, trace, span):
    import mlflow
    from mlflow.entities import AssessmentSource

    mlflow.set_tracking_uri(base)
    ours = AssessmentSource(source_type="CODE", source_id="groundcheck")
    for _ in range(2):
        mlflow.log_feedback(trace_id=trace, name="groundcheck.correct", value="wrong", source=ours,
                            rationale="an earlier labeling", metadata={"score": "0", "run": "old"},
                            span_id=span)
    mlflow.log_feedback(trace_id=trace, name="groundcheck.obsolete", value="gone", source=ours,
                        span_id=span)
    mlflow.log_feedback(trace_id=trace, name="groundcheck.correct", value="correct",
                        source=AssessmentSource(source_type="HUMAN", source_id="alice"),
                        span_id=span)


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve()
    elif sys.argv[1:2] == ["assessments"] and len(sys.argv) == 3:
        assessments(sys.argv[2])
    elif sys.argv[1:2] == ["export"] and len(sys.argv) == 4:
        export(*sys.argv[2:])
    elif sys.argv[1:2] == ["delete"] and len(sys.argv) >= 4:
        delete(sys.argv[2], sys.argv[3:])
    elif sys.argv[1:2] == ["stale"] and len(sys.argv) == 5:
        stale(*sys.argv[2:])
    else:
        sys.exit(__doc__)
