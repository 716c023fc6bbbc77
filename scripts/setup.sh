#!/usr/bin/env bash
# Installs what the tests need beyond cargo (reused across runs):
#   - s3s-fs, a real S3-protocol server over a folder, for the s3:// tests
#     (into ~/.cache/groundcheck/tools);
#   - pyarrow and duckdb from PyPI, for the notebook test;
#   - node and the MCP servers in tests/mcp (npm ci), for the snapshot/drift tests;
#   - Debian's Chromium and playwright-core (tests/browser, npm ci), for the HTML tests.
# Safe to run again: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
setup_started=$(date +%s)

# The test runner: cargo-nextest gives every test a deadline (.config/nextest.toml) and
# runs every test binary whatever fails. This kind of machine ships it; install it where not.
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: installing cargo-nextest (cargo install, a few minutes, once)"
  cargo install --locked --quiet cargo-nextest
fi
echo "setup: $(cargo nextest --version 2>/dev/null | head -1)"

tools="${GROUNDCHECK_TOOLS:-$HOME/.cache/groundcheck/tools}"
mkdir -p "$tools"

if [ ! -x "$tools/bin/s3s-fs" ]; then
  echo "setup: installing s3s-fs 0.14.1 into $tools (a few minutes, once)"
  # 0.14.1: newer versions need a newer rustc than this project's toolchain.
  cargo install --locked --quiet s3s-fs@0.14.1 --features binary --root "$tools"
fi
echo "setup: s3s-fs at $tools/bin/s3s-fs"

# pyarrow and DuckDB, for the test that reads our Parquet outputs as a notebook would.
if ! python3 -c "import pyarrow, duckdb" 2>/dev/null; then
  echo "setup: installing pyarrow and duckdb (pip)"
  python3 -m pip install --quiet --disable-pip-version-check pyarrow duckdb
fi
echo "setup: $(python3 -c 'import pyarrow, duckdb; print("pyarrow", pyarrow.__version__, "duckdb", duckdb.__version__)')"

# Real MCP servers for the drift and snapshot tests, pinned by tests/mcp/package-lock.json
# (the reference servers advertise empty schemas when a newer zod sneaks in).
if ! command -v npm >/dev/null; then
  echo "setup: installing nodejs and npm (apt)"
  sudo_="" ; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq && $sudo_ apt-get install -y -qq nodejs npm
fi
if [ ! -f tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js ]; then
  echo "setup: installing MCP test servers (npm ci in tests/mcp)"
  (cd tests/mcp && npm ci --no-audit --no-fund --silent)
fi
# A TypeScript agent for the importer tests (tests/producers/ts): the Vercel AI SDK with
# @ai-sdk/mcp and @ai-sdk/otel on the OpenTelemetry JS SDK, reinstalled when its lock
# file changes.
if ! cmp -s tests/producers/ts/package-lock.json tests/producers/ts/node_modules/.gc-lock; then
  echo "setup: installing the TypeScript agent (npm ci in tests/producers/ts)"
  # --loglevel=error: @ai-sdk/mcp asks for node >= 22 and runs on the machine's 20.
  (cd tests/producers/ts && npm ci --no-audit --no-fund --loglevel=error)
  cp tests/producers/ts/package-lock.json tests/producers/ts/node_modules/.gc-lock
fi
# A real browser for the HTML report tests (tests/it/html.rs): Debian's Chromium, driven
# by playwright-core pinned in tests/browser/package-lock.json (no browser download).
if [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing chromium (apt)"
  sudo_="" ; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq && $sudo_ apt-get install -y -qq chromium
fi
if [ ! -f tests/browser/node_modules/playwright-core/package.json ]; then
  echo "setup: installing playwright-core (npm ci in tests/browser)"
  (cd tests/browser && npm ci --no-audit --no-fund --silent)
fi
echo "setup: $(/usr/bin/chromium --version 2>/dev/null | head -1), playwright-core $(node -p 'require("./tests/browser/node_modules/playwright-core/package.json").version')"
echo "setup: node $(node --version), MCP server-everything $(node -p 'require("./tests/mcp/node_modules/@modelcontextprotocol/server-everything/package.json").version')"

# Real producers of traces for the importer and collector tests (tests/producers): the
# official MCP SDKs, fastmcp, pydantic-ai, openai-agents, OpenTelemetry, OpenInference,
# OpenLLMetry, a Phoenix server, Strands Agents, smolagents, LangGraph, LlamaIndex, Google
# ADK, Pydantic Logfire, MLflow Tracing, an MLflow tracking server and CrewAI, each set in its own venv (they conflict: OpenLLMetry's MCP
# instrumentation and smolagents' MCP adapter load only with mcp<2, Strands pins mcp<2.2;
# logfire installed changes what pydantic-ai's spans carry), pinned by
# tests/producers/requirements-*.txt.
# A venv is rebuilt when its requirements file changes.
venvs="${GROUNDCHECK_VENVS:-$HOME/.cache/groundcheck/venvs}"
mkdir -p "$venvs"
# uv installs a pinned venv in seconds where pip takes minutes (measured: Phoenix's 143
# packages, cold caches, 4 s against 93 s); the one on PATH, else a pinned one in $tools.
uv=$(command -v uv || true)
if [ -z "$uv" ]; then
  if [ ! -x "$tools/uv/bin/uv" ]; then
    echo "setup: installing uv 0.13.9 into $tools/uv (pip, once)"
    python3 -m venv "$tools/uv"
    "$tools/uv/bin/pip" install --quiet --disable-pip-version-check uv==0.13.9
  fi
  uv="$tools/uv/bin/uv"
fi
echo "setup: $("$uv" --version)"
# venv NAME REQUIREMENTS [uv pip install options]: (re)built when the file changes.
venv() {
  local v=$1 req=$2 sum
  shift 2
  sum=$(sha256sum "$req" | cut -c1-16)
  if [ "$(cat "$venvs/$v/.requirements" 2>/dev/null)" != "$sum" ]; then
    echo "setup: installing the $v venv ($req)"
    rm -rf "$venvs/$v"
    "$uv" venv --quiet --python python3 "$venvs/$v"
    "$uv" pip install --quiet --python "$venvs/$v/bin/python" "$@" -r "$req"
    echo "$sum" > "$venvs/$v/.requirements"
  fi
}
for v in producers openllmetry phoenix strands smolagents langgraph llamaindex adk logfire mlflow mlflow-server crewai; do
  venv "$v" "tests/producers/requirements-$v.txt"
done
# The Berkeley Function Calling Leaderboard's package, for its data and its own AST
# checker (tests/bfcl/agree.py); without its model clients (--no-deps: the checker needs
# none of them, and they pull in torch).
venv bfcl tests/bfcl/requirements.txt --no-deps
# maturin, which packs the Python wheel (scripts/wheel.sh, tests/python/run.sh).
venv maturin tests/python/requirements-build.txt
echo "setup: producer venvs in $venvs ($("$venvs/producers/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"), "fastmcp", m.version("fastmcp"), "pydantic-ai", m.version("pydantic-ai-slim"))'))"
echo "setup: done in $(( $(date +%s) - setup_started )) s"
