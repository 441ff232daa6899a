#!/usr/bin/env bash
# The Hopper GEMM benchmark (issue 24) on the GPU machine, in ONE run: the warp-specialised
# mbarrier + wgmma bf16 GEMM compiled by nvcc (bench/cuda/hopper_gemm.cu, built here with
# nvcc -O3 -arch=sm_90a), by cudajit (the prebuilt Rust bench binary `hopper_gemm`; no
# Rust toolchain is needed here) and cuBLAS through torch.matmul
# (bench/hopper_reference.py), then one table (bench/report_hopper.py).
#
#   bash bench/run_hopper.sh [path/to/hopper_gemm] [n ...]     (default sizes 4096 8192)
#
# Finds, relative to this script's folder unless given: the Rust binary ($1 when it is a
# file, $HOPPER_BIN, ./hopper_gemm, ../target/release/hopper_gemm). Writes the table to
# $OUT/hopper.txt and the full log to $OUT/hopper-log.txt when $OUT is set.
# Exit status: 0 when every program ran and checked its results; the bars are in the table.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-hopper.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
sizes=("$@")
bin="$(first_existing "$bin_arg" "${HOPPER_BIN:-}" "$here/hopper_gemm" "$here/../target/release/hopper_gemm")" || bin=""
commit="$(commit_of "$here/../COMMIT" "$here/COMMIT")"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit Hopper GEMM benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "python: $("$PYTHON" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1)"
  echo "cudajit binary: ${bin:-missing}; sizes: ${sizes[*]:-4096 8192}"
} >"$header"
cat "$header" | tee -a "$log"

# 1. nvcc (with -Xptxas -v: registers, spills and any wgmma serialisation warning)
step nvcc-build "$NVCC" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o "$work/hopper_gemm_nvcc" "$here/cuda/hopper_gemm.cu"
if [ -x "$work/hopper_gemm_nvcc" ]; then step nvcc "$work/hopper_gemm_nvcc" "${sizes[@]}"; fi

# 2. cudajit (libnvvm here; a fresh disk cache)
if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  step cudajit env CUDAJIT_CACHE_DIR="$work/cudajit-cache" "$bin" "${sizes[@]}"
else
  echo "=== cudajit: no hopper_gemm binary" | tee -a "$log"
  failed+=(cudajit-missing)
fi

# 3. cuBLAS, in the same run
step cublas env PYTHONUNBUFFERED=1 "$PYTHON" "$here/hopper_reference.py" "${sizes[@]}"

# 4. The table
grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
"$PYTHON" "$here/report_hopper.py" "$work/results.txt" "$header" | tee "$work/hopper.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/hopper.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/hopper.txt" "$OUT/hopper.txt"
  cp "$log" "$OUT/hopper-log.txt"
fi
[ ${#failed[@]} -eq 0 ]
