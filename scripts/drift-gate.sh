#!/bin/sh
# The drift gate for CI and pre-commit: compares the live MCP server with the committed
# baseline capture and fails (exit 1) on blocking changes; exit 2 on an error.
#
#   scripts/drift-gate.sh BASELINE SERVER [drift options...]
#   scripts/drift-gate.sh --update BASELINE SERVER      # accept the server as it is now
#
# SERVER is a command run over stdio ("npx -y @modelcontextprotocol/server-memory") or an
# http(s) URL. BASELINE is a capture written by `groundcheck snapshot --capture`. Drift
# options pass through (--fail-on, --ignore FILE, --override RULE=SEVERITY,
# --format sarif > file, --client-range). GROUNDCHECK names the binary (default: on PATH).
set -eu
gc=${GROUNDCHECK:-groundcheck}
update=0
if [ "${1:-}" = "--update" ]; then
  update=1
  shift
fi
if [ $# -lt 2 ]; then
  echo "usage: drift-gate.sh [--update] BASELINE SERVER [drift options...]" >&2
  exit 2
fi
baseline=$1
server=$2
shift 2
case $server in
  http://* | https://*) source=$server ;;
  *) source="stdio:$server" ;;
esac
if [ "$update" = 1 ]; then
  exec "$gc" snapshot "$source" --capture "$baseline"
fi
if [ ! -f "$baseline" ]; then
  echo "drift-gate: no baseline at $baseline; create it with: $0 --update $baseline '$server'" >&2
  exit 2
fi
exec "$gc" drift "$baseline" "$source" "$@"
