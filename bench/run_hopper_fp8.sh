#!/usr/bin/env bash
# The fp8 (e4m3) Hopper GEMM benchmark (issue 24) on the GPU machine, in ONE run: the
# warp-specialised mbarrier + wgmma e4m3 GEMM (C bf16 = A·Bᵀ) compiled by nvcc
# (bench/cuda/hopper_fp8.cu, built here with nvcc -O3 -arch=sm_90a), by cudajit (the
# prebuilt Rust bench binary `hopper_fp8`; no Rust toolchain is needed here) and
# cuBLASLt through torch._scaled_mm (bench/hopper_fp8_reference.py), then one table
# (bench/report_hopper_fp8.py).
#
#   bash bench/run_hopper_fp8.sh [path/to/hopper_fp8] [n ...]     (default sizes 4096 8192)
#
# Finds, relative to this script's folder unless given: the Rust binary ($1 when it is a
# file, $HOPPER_FP8_BIN, ./hopper_fp8, ../target/release/hopper_fp8). Writes the table
# to $OUT/hopper-fp8.txt and the full log to $OUT/hopper-fp8-log.txt when $OUT is set.
# Exit status: 0 when every program ran and checked its results.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-hopper-fp8.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
sizes=("$@")
bin="$(first_existing "$bin_arg" "${HOPPER_FP8_BIN:-}" "$here/hopper_fp8" "$here/../target/release/hopper_fp8")" || bin=""
commit="$(commit_of "$here/../COMMIT" "$here/COMMIT")"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit fp8 Hopper GEMM benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "python: $("$PYTHON" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1)"
  echo "cudajit binary: ${bin:-missing}; sizes: ${sizes[*]:-4096 8192}"
} >"$header"
cat "$header" | tee -a "$log"

# 1. nvcc (with -Xptxas -v: registers and spills)
step nvcc-build "$NVCC" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o "$work/hopper_fp8_nvcc" "$here/cuda/hopper_fp8.cu"
if [ -x "$work/hopper_fp8_nvcc" ]; then step nvcc "$work/hopper_fp8_nvcc" "${sizes[@]}"; fi

# 2. cudajit (libnvvm here; a fresh disk cache), then its ptxas resources
if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  step cudajit env CUDAJIT_CACHE_DIR="$work/cudajit-cache" "$bin" "${sizes[@]}"
  step cudajit-inspect env CUDAJIT_CACHE_DIR="$work/cudajit-cache" "$bin" --inspect "$work/inspect"
else
  echo "=== cudajit: no hopper_fp8 binary" | tee -a "$log"
  failed+=(cudajit-missing)
fi

# 3. cuBLASLt, in the same run
step cublaslt env PYTHONUNBUFFERED=1 "$PYTHON" "$here/hopper_fp8_reference.py" "${sizes[@]}"

# 4. The table
grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
"$PYTHON" "$here/report_hopper_fp8.py" "$work/results.txt" "$header" | tee "$work/hopper-fp8.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/hopper-fp8.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/hopper-fp8.txt" "$OUT/hopper-fp8.txt"
  cp "$log" "$OUT/hopper-fp8-log.txt"
fi
[ ${#failed[@]} -eq 0 ]
