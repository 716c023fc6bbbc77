#!/usr/bin/env bash
# The Python package as a user gets it (a phase of .ci/run, after the Rust suite): build
# the wheel, install it into a fresh venv beside datafusion-python from PyPI, run the
# notebook checks against the CLI, execute docs/python.md's cells as a notebook, and
# import it beside datafusion 54, which must be refused in one sentence.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/groundcheck/target}"
started=$(date +%s)
uv=$(command -v uv || echo "$HOME/.cache/groundcheck/tools/uv/bin/uv")
scripts/wheel.sh dev
wheel=$(ls "$CARGO_TARGET_DIR"/wheels/groundcheck-*.whl)
echo "python: wheel $(basename "$wheel"), $(( $(stat -c %s "$wheel") / 1048576 )) MiB, built in $(( $(date +%s) - started )) s"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$uv" venv --quiet --python python3 "$work/venv"
"$uv" pip install --quiet --python "$work/venv/bin/python" "$wheel" -r tests/python/requirements.txt
"$work/venv/bin/python" -m ipykernel install --sys-prefix --name python3 >/dev/null
PATH="$work/venv/bin:$PATH" "$work/venv/bin/python" tests/python/notebook.py \
  --binary "$CARGO_TARGET_DIR/debug/groundcheck" --work "$work/out"
PATH="$work/venv/bin:$PATH" "$work/venv/bin/python" tests/python/walkthrough.py
# Beside another DataFusion major: refused at import, in one sentence.
"$uv" venv --quiet --python python3 "$work/old"
"$uv" pip install --quiet --python "$work/old/bin/python" --no-deps "$wheel"
"$uv" pip install --quiet --python "$work/old/bin/python" datafusion==54.1.0 pyarrow==26.0.1
if said=$("$work/old/bin/python" -c 'import groundcheck' 2>&1); then
  echo "python: FAIL: groundcheck imported beside datafusion 54" >&2
  exit 1
fi
last=$(printf '%s\n' "$said" | tail -1)
case "$last" in
  "ImportError: groundcheck 0.1.0 is built on DataFusion 55 and needs datafusion-python 55.x, but datafusion 54.1.0 is installed"*) echo "ok   beside datafusion 54: $last" ;;
  *) echo "python: FAIL: beside datafusion 54 the import said: $said" >&2; exit 1 ;;
esac
echo "python: done in $(( $(date +%s) - started )) s"
