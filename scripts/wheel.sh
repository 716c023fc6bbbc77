#!/usr/bin/env bash
# Builds the Python wheel (python/): the groundcheck command (the binary cargo builds, put
# under python/groundcheck.data/scripts, installed into the environment's scripts folder)
# and the native module (python/src, through datafusion-ffi), packed by maturin into
# $CARGO_TARGET_DIR/wheels. `scripts/wheel.sh` builds the debug profile and takes the binary
# the test build made (the features cargo unifies for the workspace, so nothing is built
# twice); `scripts/wheel.sh release` builds both for release (about 75 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/groundcheck/target}"
profile="${1:-dev}"
maturin="${GROUNDCHECK_VENVS:-$HOME/.cache/groundcheck/venvs}/maturin/bin/maturin"
[ -x "$maturin" ] || { echo "wheel: maturin is not installed; run scripts/setup.sh" >&2; exit 2; }
case "$profile" in
  dev)
    # The test build's binary: `cargo test --workspace --no-run` is what nextest builds.
    cargo test --workspace --no-run --quiet
    bin="$CARGO_TARGET_DIR/debug/groundcheck" ;;
  release)
    cargo build --workspace --release --bins --quiet
    bin="$CARGO_TARGET_DIR/release/groundcheck" ;;
  *) echo "wheel: the profile is dev or release, not $profile" >&2; exit 2 ;;
esac
scripts=python/groundcheck.data/scripts
rm -rf python/groundcheck.data
mkdir -p "$scripts"
cp "$bin" "$scripts/groundcheck"
trap 'rm -rf python/groundcheck.data' EXIT
rm -f "$CARGO_TARGET_DIR"/wheels/groundcheck-*.whl
log="$CARGO_TARGET_DIR/wheels.log"
mkdir -p "$CARGO_TARGET_DIR"
if ! "$maturin" build --profile "$profile" --manifest-path python/Cargo.toml \
  --interpreter python3 --out "$CARGO_TARGET_DIR/wheels" >"$log" 2>&1; then
  cat "$log" >&2
  echo "wheel: maturin failed (its output is above)" >&2
  exit 1
fi
# maturin builds python/ alone; if its features ever differ from the workspace's, it
# rebuilds DataFusion and Arrow (20 minutes on 2 cores) and CI's cold run doubles: say so.
# Small crates may be compiled once more and are not counted: pyo3's own (their build
# scripts read the interpreter settings maturin passes) and, on a cold target dir, the
# FFI crates only the module uses (stabby, async-ffi, libloading, datafusion-ffi: seconds;
# measured 2026-12-05 on a fresh target dir, the second run compiled nothing).
rebuilt=$(grep -E '^ *Compiling (datafusion|arrow|parquet|sqlparser|object_store|ballista)' "$log" | grep -v -E 'Compiling datafusion-ffi ' || true)
if [ "$profile" = dev ] && [ -n "$rebuilt" ]; then
  echo "wheel: maturin compiled $(printf '%s\n' "$rebuilt" | wc -l) crate(s) of DataFusion or Arrow the test build had already built, first $(printf '%s\n' "$rebuilt" | head -1 | awk '{print $2}'): align python/Cargo.toml's features with the workspace's (cargo tree -e features)" >&2
  exit 1
fi
ls "$CARGO_TARGET_DIR"/wheels/groundcheck-*.whl
