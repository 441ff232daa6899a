#!/usr/bin/env bash
# The FlashAttention-3-structured attention forward (issue 24) on the GPU machine, in ONE
# run: the nvcc twin (bench/cuda/hopper_attention.cu, built here with nvcc -O3
# -arch=sm_90a), cudajit (the prebuilt Rust bench binary `hopper_attention`, bounds-checked
# and unchecked; no Rust toolchain is needed here) and PyTorch's
# scaled_dot_product_attention with the cuDNN and FLASH_ATTENTION backends
# (bench/cuda/tc_reference.py), then one table (bench/report_hopper_attention.py).
#
#   bash bench/run_hopper_attention.sh [path/to/hopper_attention] [D ...]   (default 128 64)
#
# Finds, relative to this script's folder unless given: the Rust binary ($1 when it is a
# file, $HOPPER_ATTENTION_BIN, ./hopper_attention, ../target/release/hopper_attention).
# Writes the table to $OUT/hopper-attention.txt and the full log to
# $OUT/hopper-attention-log.txt when $OUT is set.
# Exit status: 0 when every program ran and checked its results; the bars are in the table.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-hopper-attention.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
dims=("$@")
[ ${#dims[@]} -gt 0 ] || dims=(128 64)
bin="$(first_existing "$bin_arg" "${HOPPER_ATTENTION_BIN:-}" "$here/hopper_attention" "$here/../target/release/hopper_attention")" || bin=""
commit="$(commit_of "$here/../COMMIT" "$here/COMMIT")"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit Hopper attention benchmark (FA3 structure), $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "python: $("$PYTHON" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1)"
  echo "cudajit binary: ${bin:-missing}; head dims: ${dims[*]}; batch·heads 128, sequence 4096, bf16, non-causal"
} >"$header"
cat "$header" | tee -a "$log"

# 1. nvcc (with -Xptxas -v: registers, spills and any wgmma serialisation warning)
step nvcc-build "$NVCC" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o "$work/hopper_attention_nvcc" "$here/cuda/hopper_attention.cu"
if [ -x "$work/hopper_attention_nvcc" ]; then step nvcc "$work/hopper_attention_nvcc" "${dims[@]}"; fi

# 2. cudajit (libnvvm here; a fresh disk cache)
if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  step cudajit env CUDAJIT_CACHE_DIR="$work/cudajit-cache" "$bin" "${dims[@]}"
else
  echo "=== cudajit: no hopper_attention binary" | tee -a "$log"
  failed+=(cudajit-missing)
fi

# 3. cuDNN and FLASH_ATTENTION through torch, in the same run
step torch env PYTHONUNBUFFERED=1 "$PYTHON" "$here/cuda/tc_reference.py" "${dims[@]/#/attention_d}"

# 4. The table
grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
"$PYTHON" "$here/report_hopper_attention.py" "$work/results.txt" "$header" | tee "$work/hopper-attention.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/hopper-attention.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/hopper-attention.txt" "$OUT/hopper-attention.txt"
  cp "$log" "$OUT/hopper-attention-log.txt"
fi
[ ${#failed[@]} -eq 0 ]
