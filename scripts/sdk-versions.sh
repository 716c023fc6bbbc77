#!/usr/bin/env bash
# Refreshes src/drift/sdk_versions.txt: every released version of the MCP SDKs that put
# their own version in serverInfo when a server declares none (the Python SDK `mcp`, and
# `fastmcp`). `groundcheck drift` does not take such a version for the server's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=src/drift/sdk_versions.txt
{
  echo "# Library versions that servers report as their own when they declare none."
  echo "# One 'PACKAGE VERSION' per line; refreshed by scripts/sdk-versions.sh."
  for pkg in mcp fastmcp; do
    pip index versions "$pkg" 2>/dev/null | sed -n 's/^Available versions: //p' | tr ',' '\n' \
      | sed 's/^ *//' | sort -V | sed "s/^/$pkg /"
  done
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "sdk-versions: $(grep -vc '^#' "$out") versions -> $out"
