#!/usr/bin/env bash
# The SIMT benchmark suite (issue 6) on the GPU machine, in ONE run: the same kernels
# compiled by nvcc (bench/cuda/simt.cu, built here with nvcc -O3 -arch=sm_90), by
# cudajit (the prebuilt Rust bench binary `simt`; no Rust toolchain is needed here) and
# by Numba (bench/numba/simt.py), the library references (bench/cupy/reference.py:
# cupy.sum, cuBLAS SGEMM with TF32 off), then one comparison table.
#
#   bash bench/run_simt.sh [path/to/simt] [kernel ...]
#
# Kernels (all when none is named): copy copy_kernel sum_shared sum_warp fast_matmul sgemm histogram
# transpose stencil scan monte_carlo_pi grid_sync. Finds, relative to this script's
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

first_existing() {
  for p in "$@"; do
    if [ -n "$p" ] && [ -f "$p" ]; then echo "$p"; return 0; fi
  done
  return 1
}

step() {  # step NAME CMD...: run, keep going on failure, log everything
  local name="$1"; shift
  echo "=== $name: $*" | tee -a "$log"
  local start=$SECONDS
  "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  echo "=== $name took $((SECONDS - start)) s" | tee -a "$log"
  if [ "$rc" -ne 0 ]; then
    echo "=== $name FAILED (exit $rc)" | tee -a "$log"
    failed+=("$name")
  fi
  return 0
}

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
kernels=("$@")
bin="$(first_existing "$bin_arg" "${SIMT_BIN:-}" "$here/simt" "$here/../target/release/simt")" || bin=""
wheel_dir=""
for d in "${WHEEL_DIR:-}" "$here/../.whl" "$here/.whl"; do
  if [ -n "$d" ] && compgen -G "$d/numpy-*.whl" >/dev/null; then wheel_dir="$d"; break; fi
done
commit_file="$(first_existing "$here/../COMMIT" "$here/COMMIT")" || commit_file=""
if [ -n "$commit_file" ]; then
  commit="$(cat "$commit_file")"
else
  commit="$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
fi

export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$CUDA_HOME/bin:$PATH"
NVCC="${NVCC:-nvcc}"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit SIMT benchmark suite, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  if smi="$(nvidia-smi --query-gpu=name,driver_version,memory.total,pstate,clocks.sm,clocks.mem,temperature.gpu \
    --format=csv,noheader 2>/dev/null)"; then
    echo "device (name, driver, memory, pstate, SM clock, memory clock, temperature): $smi"
  else
    echo "device: (nvidia-smi failed)"
  fi
  echo "nvcc: $("$NVCC" --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo missing)"
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
