#!/usr/bin/env bash
# The high-level operations' benchmark (issue 12) on the GPU machine, in ONE run:
# cudajit (the prebuilt Rust bench binary `hl`), CUB (bench/cuda/hl_reference.cu, built
# here with nvcc -O3 -arch=sm_90) and CuPy (bench/cupy/hl_reference.py), then one table
# (bench/report_hl.py) with the bars checked.
#
#   bash bench/run_hl.sh [path/to/hl]
#
# Finds the Rust binary ($1 when a file, $HL_BIN, ./hl, ../target/release/hl; `cargo
# xtask gpu-bundle` puts it in bundle/bench/). Writes the table to $OUT/hl.txt and the
# full log to $OUT/hl-log.txt when $OUT is set. Draw the chart afterwards, on a machine
# with cargo: `cargo xtask chart-hl hl.txt hl.png`.
# Exit status: 0 when every program ran and checked its results; the bars are in the table.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-hl.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
bin="$(first_existing "$bin_arg" "${HL_BIN:-}" "$here/hl" "$here/../target/release/hl")" || bin=""
commit="$(commit_of "$here/../COMMIT" "$here/COMMIT")"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit high-level operations benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "cudajit binary: ${bin:-missing}"
} >"$header"
cat "$header" | tee -a "$log"

if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  step cudajit env CUDAJIT_CACHE_DIR="$work/cudajit-cache" "$bin"
else
  echo "=== cudajit: no hl binary (run cargo xtask gpu-bundle on the development machine)" | tee -a "$log"
  failed+=(cudajit-missing)
fi
step cub-build "$NVCC" -O3 -arch=sm_90 -o "$work/hl_cub" "$here/cuda/hl_reference.cu"
if [ -x "$work/hl_cub" ]; then step cub "$work/hl_cub"; fi
step cupy env PYTHONUNBUFFERED=1 "$PYTHON" "$here/cupy/hl_reference.py"

grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
"$PYTHON" "$here/report_hl.py" "$work/results.txt" "$header" | tee "$work/hl.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/hl.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/hl.txt" "$OUT/hl.txt"
  cp "$log" "$OUT/hl-log.txt"
fi
[ ${#failed[@]} -eq 0 ]
