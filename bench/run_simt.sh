#!/usr/bin/env bash
# The SIMT benchmark suite (issue 6, and issue 9's n-body and Black-Scholes) on the GPU machine, in ONE run: the same kernels
# compiled by nvcc (bench/cuda/simt.cu, built here with nvcc -O3 -arch=sm_90), by
# cudajit (the prebuilt Rust bench binary `simt`; no Rust toolchain is needed here) and
# by Numba (bench/numba/simt.py), the library references (bench/cupy/reference.py:
# cupy.sum, cuBLAS SGEMM with TF32 off), then one comparison table.
#
#   bash bench/run_simt.sh [path/to/simt] [kernel ...]
#
# Kernels (all when none is named): copy copy_kernel sum_shared sum_warp fast_matmul sgemm histogram
# transpose stencil scan monte_carlo_pi grid_sync, and issue 9's nbody and black_scholes
# (the generic kernel's f32 and f64 instantiations and the hand-written f32 kernel). Finds, relative to this script's
# folder unless given: the Rust binary ($1 when it is a file, $SIMT_BIN, ./simt,
# ../target/release/simt; `cargo xtask gpu-bundle` puts it in bundle/bench/), the numpy
# wheel Numba needs ($WHEEL_DIR, ../.whl, ./.whl), the commit (../COMMIT, else git).
# Writes the table to $OUT/simt.txt and the full log (RESULT lines included) to
# $OUT/simt-log.txt when $OUT is set. Draw the chart afterwards, on
# a machine with cargo: `cargo xtask chart simt.txt simt.png`.
# Exit status: 0 when every program ran and checked its results; the bars are in the table.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-simt.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
kernels=("$@")
bin="$(first_existing "$bin_arg" "${SIMT_BIN:-}" "$here/simt" "$here/../target/release/simt")" || bin=""
wheel_dir="$(wheel_dir_in "${WHEEL_DIR:-}" "$here/../.whl" "$here/.whl")" || wheel_dir=""
commit="$(commit_of "$here/../COMMIT" "$here/COMMIT")"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit SIMT benchmark suite, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "python: $("$PYTHON" --version 2>&1); numpy wheel for Numba: ${wheel_dir:-none}"
  echo "cudajit binary: ${bin:-missing}; kernels: ${kernels[*]:-all}"
} >"$header"
cat "$header" | tee -a "$log"
suite_start=$SECONDS

# 1. nvcc
step nvcc-build "$NVCC" -O3 -arch=sm_90 -o "$work/simt_nvcc" "$here/cuda/simt.cu"
if [ -x "$work/simt_nvcc" ]; then step nvcc "$work/simt_nvcc" "${kernels[@]}"; fi

# 2. cudajit (ahead-of-time PTX when the bundle embedded it, else libnvvm here; a
#    fresh disk cache either way)
if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  step cudajit env CUDAJIT_CACHE_DIR="$work/cudajit-cache" "$bin" "${kernels[@]}"
else
  echo "=== cudajit: no simt binary (run cargo xtask gpu-bundle on the development machine)" | tee -a "$log"
  failed+=(cudajit-missing)
fi

# 3. Numba, with the carried numpy first on the path (only for this step: CuPy and
#    PyTorch below keep the machine's own numpy).
numba_env=(env PYTHONUNBUFFERED=1)
if [ -n "$wheel_dir" ]; then
  site="$work/site"
  step numpy-install "$PYTHON" -m pip install -q --no-index --no-deps --no-compile \
    --no-cache-dir --upgrade --target "$site" "$wheel_dir"/numpy-*.whl
  numba_env+=(PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}")
fi
step numba "${numba_env[@]}" "$PYTHON" "$here/numba/simt.py" "${kernels[@]}"

# 4. CuPy / cuBLAS / PyTorch references
step references env PYTHONUNBUFFERED=1 "$PYTHON" "$here/cupy/reference.py"

# 5. The table
echo "=== suite took $((SECONDS - suite_start)) s" | tee -a "$log"
grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
"$PYTHON" "$here/report_simt.py" "$work/results.txt" "$header" | tee "$work/simt.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/simt.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/simt.txt" "$OUT/simt.txt"
  cp "$log" "$OUT/simt-log.txt"
fi
[ ${#failed[@]} -eq 0 ]
