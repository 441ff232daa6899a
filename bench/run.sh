#!/usr/bin/env bash
# The headline benchmark, on the GPU machine, in ONE run: nvcc's vecadd (built here
# with nvcc -O3 -arch=sm_90), cudajit's (the prebuilt Rust bench binary; no Rust
# toolchain is needed here) and Numba's, then one comparison table.
#
#   bash bench/run.sh [path/to/vecadd_launch]
#
# Finds, relative to this script's folder unless given:
#   the Rust binary   $1, $BENCH_BIN, ./vecadd_launch, ../bundle/vecadd_launch,
#                     ../target/release/vecadd_launch (`cargo xtask gpu-bundle` puts it in bundle/bench/)
#   the numpy wheel   $WHEEL_DIR, ../.whl, ./.whl, ../bundle/.whl (numpy-*.whl; Numba
#                     there needs numpy <= 2.3)
#   the commit        ../bundle/COMMIT, ./COMMIT, else git
# Writes the table to $OUT/bench.txt, the full log to $OUT/bench-log.txt and the raw
# RESULT lines to $OUT/results.txt when $OUT is set. Exit status: 0 when all three
# programs ran and checked their results; the criteria verdicts are in the table.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-bench.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin="$(first_existing "${1:-}" "${BENCH_BIN:-}" "$here/vecadd_launch" \
  "$here/../bundle/vecadd_launch" "$here/../target/release/vecadd_launch")" || bin=""
wheel_dir="$(wheel_dir_in "${WHEEL_DIR:-}" "$here/../.whl" "$here/.whl" "$here/../bundle/.whl")" || wheel_dir=""
commit="$(commit_of "$here/../bundle/COMMIT" "$here/../COMMIT" "$here/COMMIT")"

# Header: what ran where.
header="$work/header.txt"
{
  echo "cudajit vecadd benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "python: $(python3 --version 2>&1); numpy wheel: ${wheel_dir:-none}"
  echo "cudajit binary: ${bin:-missing}"
} >"$header"
cat "$header" | tee -a "$log"

# 1. nvcc: the executable and the PTX the Rust bench launches through cudarc.
cu="$here/cuda/vecadd.cu"
step nvcc-build "$NVCC" -O3 -arch=sm_90 -o "$work/vecadd_nvcc" "$cu"
step nvcc-ptx "$NVCC" -O3 -arch=sm_90 -ptx -o "$work/vecadd.ptx" "$cu"
if [ -x "$work/vecadd_nvcc" ]; then step nvcc "$work/vecadd_nvcc"; fi

# 2. cudajit: a fresh disk cache, so its first call includes the compile. The binary
#    also runs itself twice as a child (its own fresh cache folder under $TMPDIR) to time
#    a new generic instantiation's first launch (issue 9).
if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  ptx_env=()
  if [ -s "$work/vecadd.ptx" ]; then ptx_env=(CUDAJIT_BENCH_PTX="$work/vecadd.ptx"); fi
  # CUDAJIT_AOT=0: the first call includes the JIT, as Numba's does. A new
  # CUDA_CACHE_PATH: the driver's JIT cache is cold, as on a user's first run (the
  # binary's first-call children time cold and warm in fresh processes too).
  step cudajit env CUDAJIT_AOT=0 CUDAJIT_CACHE_DIR="$work/cudajit-cache" \
    CUDA_CACHE_PATH="$work/driver-jit-cache" "${ptx_env[@]}" "$bin"
  # The launch path's own work on this host's CPU, no GPU involved (issue 27's microbench).
  step cudajit-cpu-host "$bin" --cpu-host-path
else
  echo "=== cudajit: no vecadd_launch binary (run cargo xtask gpu-bundle on the development machine)" | tee -a "$log"
  failed+=(cudajit-missing)
fi

# 3. Numba, with the carried numpy first on the path.
if [ -n "$wheel_dir" ]; then
  site="$work/site"
  step numpy-install python3 -m pip install -q --no-index --no-deps --no-compile \
    --no-cache-dir --upgrade --target "$site" "$wheel_dir"/numpy-*.whl
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
step numba env PYTHONUNBUFFERED=1 python3 "$here/numba/vecadd.py"

# 4. The table.
grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
python3 "$here/report.py" "$work/results.txt" "$header" | tee "$work/bench.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/bench.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/bench.txt" "$OUT/bench.txt"
  cp "$log" "$OUT/bench-log.txt"
  cp "$work/results.txt" "$OUT/results.txt"
fi
[ ${#failed[@]} -eq 0 ]
