#!/usr/bin/env bash
# Captures small samples of what the real producers emit, for the fast importer tests
# (tests/it/import.rs): tests/fixtures/import/captured/. The live tests
# (tests/it/producers.rs) run the producers themselves; these samples only spare the fast
# tests a Python run. Rerun after changing a producer or its pins, and review the diff.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venvs="${GROUNDCHECK_VENVS:-$HOME/.cache/groundcheck/venvs}"
out="$here/../fixtures/import/captured"
rm -rf "$out"; mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run() { # venv script dir args...
  local v=$1 s=$2 d=$3; shift 3; mkdir -p "$d"
  (cd "$d" && GC_SPANS_FILE_SERVER="$d/server" "$venvs/$v/bin/python" "$here/$s" --spans-file "$d/agent" "$@" > "$d/ids.jsonl" 2> "$d/log")
}
run producers pydantic_agent.py "$work/genai"
run producers pydantic_agent.py "$work/oi" --instrumentation openinference
run producers openai_agents_agent.py "$work/oa"
run openllmetry mcp_sdk_client.py "$work/oll"
# Producers in venvs of their own, their fastmcp server run by the producers venv.
export GC_SERVER_PYTHON="$venvs/producers/bin/python"
run strands strands_agent.py "$work/strands"
run strands strands_agent.py "$work/strands-latest" --semconv latest
run smolagents smolagents_agent.py "$work/smolagents"
run langgraph langgraph_agent.py "$work/langgraph"
run langgraph langgraph_agent.py "$work/langgraph-openllmetry" --instrumentation openllmetry
run llamaindex llamaindex_agent.py "$work/llamaindex"
run adk adk_agent.py "$work/adk" --instrumentation adk
(unset GC_SERVER_PYTHON; run logfire pydantic_agent.py "$work/logfire" --instrumentation logfire)
run mlflow mlflow_agent.py "$work/mlflow"
for t in genai legacy; do
  mkdir -p "$work/vercel-$t"
  (cd "$work/vercel-$t" && GC_SPANS_FILE_SERVER="$work/vercel-$t/server" node "$here/ts/agent.mjs" \
    --spans-file "$work/vercel-$t/agent" --telemetry "$t" > ids.jsonl 2> log)
done
for p in strands strands-latest smolagents langgraph langgraph-openllmetry llamaindex adk logfire mlflow vercel-genai vercel-legacy; do
  mkdir -p "$out/$p"
  cp "$work/$p"/*.pb "$work/$p/ids.jsonl" "$out/$p/"
done
mkdir -p "$out/pydantic-ai-genai" "$out/openai-agents" "$out/openllmetry" "$out/phoenix"
cp "$work/genai"/*.pb "$work/genai/agent.jsonl" "$work/genai/ids.jsonl" "$out/pydantic-ai-genai/"
cp "$work/oa"/*.pb "$work/oa/ids.jsonl" "$out/openai-agents/"
cp "$work/oll"/*.jsonl "$out/openllmetry/"
"$venvs/phoenix/bin/python" "$here/phoenix_export.py" --otlp "$work/oi"/*.pb --out "$out/phoenix" > /dev/null
cp "$work/oi"/*.pb "$work/oi/ids.jsonl" "$out/phoenix/"
# MLflow's own export of the MLflow producer's traces: the agent and its server export to
# a real MLflow tracking server, whose client writes the traces back out. Same seed, so
# the same ids as the captured agent.pb.
mlflow_capture() {
  local d="$work/mlflow-store" line url
  mkdir -p "$d"
  coproc MLF { "$venvs/mlflow-server/bin/python" "$here/mlflow_server.py" serve; }
  read -r line <&"${MLF[0]}"; url=${line#listening }
  run mlflow mlflow_agent.py "$d" --mlflow "$url"
  "$venvs/mlflow-server/bin/python" "$here/mlflow_server.py" export "$url" "$out/mlflow/mlflow-traces.jsonl" > /dev/null
  eval "exec ${MLF[1]}>&-"; wait
}
mlflow_capture
# Compressed (the importers read gzip): Phoenix's and MLflow's exports are verbose.
gzip -9 -n "$out"/phoenix/phoenix-* "$out"/mlflow/mlflow-traces.jsonl
du -sh "$out"/*
