#!/usr/bin/env bash
# Issue 23: why cudajit's bf16 GEMM 8192³ reads 1.05-1.15x nvcc from one launch set to
# the next (same binary, same machine) while the nvcc twin stays within 2%. One call on
# the GPU machine, four experiments, each holding something equal that the others vary:
#
#   1. tc_same_buffers: cudajit's PTX (from `tc --inspect`, the same PTX the binary
#      JITs there; checked first) and the twin on the SAME buffers, round-robin launch by
#      launch, fresh buffers per set (cudaMalloc and the stream-ordered pool, as cudajit's
#      arrays) after pads of other sizes. A ratio that moves with the set is placement
#      meeting the kernel; a ratio that stays while the tc binary moves is the harness.
#   2. The two harnesses as processes, alternating, three times each (as run_tc.sh).
#   3. ncu --set full on one launch of each kernel on the same buffers: L2 hit rate,
#      DRAM bytes, stall reasons, issue activity (cudajit checked / unchecked / twin).
#
#   bash bench/run_tc_variance.sh [path/to/tc]     (writes under $OUT, or a temp folder)
# Needs nvcc and ncu (the GPU machine's image has both); the tc binary as run_tc.sh finds it.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cudajit-tc-variance.XXXXXX")}"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-tc-variance-work.XXXXXX")"
export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$CUDA_HOME/bin:$PATH"
bin="${1:-${TC_BIN:-$here/tc}}"
[ -f "$bin" ] || { echo "no tc binary at $bin"; exit 1; }
chmod +x "$bin" 2>/dev/null || true
clocks() {
  echo "$1 $(nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv,noheader 2>/dev/null)" >>"$out/clocks.txt"
}

clocks start
nvcc -O3 -std=c++17 -arch=sm_90 -o "$work/same_buffers" "$here/cuda/tc_same_buffers.cu" -lcuda
nvcc -O3 -std=c++17 -arch=sm_90 -o "$work/tc_nvcc" "$here/cuda/tc.cu"
"$bin" --inspect "$work/ptx" >"$out/resources.txt" 2>&1

# 1. same buffers: 20 bf16 sets (even: cudaMalloc, odd: pool), a tf32 set every 4th
timeout 120 "$work/same_buffers" "$work/ptx" 20 10 >"$out/same_buffers.txt" 2>&1
clocks after-same-buffers

# 2. the harnesses as processes, alternating
for i in 1 2 3; do
  timeout 60 "$work/tc_nvcc" gemm_bf16_8192 | grep -E "^(RESULT|WRONG)" | sed "s/^/set$i /"
  CUDAJIT_CACHE_DIR="$work/cache" timeout 90 "$bin" gemm_bf16_8192 |
    grep -E "^(RESULT|WRONG)" | sed "s/^/set$i /"
done >"$out/processes.txt" 2>&1
clocks after-processes

# 3. ncu on one launch of each (twin, cudajit checked, unchecked), same buffers
timeout 150 ncu --clock-control none --set full -k regex:gemm -c 3 \
  "$work/same_buffers" "$work/ptx" --ncu >"$out/ncu.txt" 2>&1
clocks end

echo "== same buffers (set, allocator, nvcc us, cj us, nochk us, cj/nvcc, nochk/nvcc)"
grep -E "^(SET|WRONG)" "$out/same_buffers.txt" | awk '{print $2, $3, $4, $8, $10, $12, $14, $16}'
echo "== processes"
awk '{print $1, $3, $4}' "$out/processes.txt"
echo "== ncu"
grep -E "^  [a-z_]*gemm|L2 Hit Rate|DRAM Throughput|Duration|Issue Slots Busy|Achieved Occupancy|No Eligible|Memory Throughput" \
  "$out/ncu.txt" | head -60
cat "$out/clocks.txt"
