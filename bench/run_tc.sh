#!/usr/bin/env bash
# The tensor-core benchmark (issue 23) on the GPU machine, in ONE run: the same kernels
# compiled by nvcc (bench/cuda/tc.cu, built here with nvcc -O3 -arch=sm_90; its kernels also as a
# cubin that the cudajit binary times beside its own on the same buffers), by cudajit
# (the prebuilt Rust bench binary `tc`; no Rust toolchain is needed here; it also times
# cuBLAS on its own buffers) and the library references in torch's process
# (bench/cuda/tc_reference.py: cuBLAS through torch, SDPA's FLASH_ATTENTION and
# CUDNN_ATTENTION backends), then one comparison table (bench/report_tc.py).
#
#   bash bench/run_tc.sh [path/to/tc] [kernel ...]
#
# Kernels (all when none is named): gemm_bf16_4096 gemm_bf16_8192 gemm_tf32_8192
# gemm_int8_8192 dgemm_f64_4096 attention_d64 attention_d128. Finds, relative to this
# script's folder unless given: the Rust binary ($1 when it is a file, $TC_BIN, ./tc,
# ../target/release/tc; `cargo xtask gpu-bundle` puts it in bundle/bench/), the commit
# (../COMMIT, else git). Writes the table to $OUT/tc.txt and the full log to
# $OUT/tc-log.txt when $OUT is set. Draw the chart afterwards, on a machine with cargo:
# `cargo xtask chart-tc tc.txt tc.png`.
# Exit status: 0 when every program ran and checked its results; the bars are in the table.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-tc.XXXXXX")"
log="$work/log.txt"
failed=()

# shellcheck source=common.sh
source "$here/common.sh"

bin_arg=""
if [ $# -gt 0 ] && [ -f "$1" ]; then bin_arg="$1"; shift; fi
kernels=("$@")
bin="$(first_existing "$bin_arg" "${TC_BIN:-}" "$here/tc" "$here/../target/release/tc")" || bin=""
commit="$(commit_of "$here/../COMMIT" "$here/COMMIT")"
PYTHON="${PYTHON:-python3}"

header="$work/header.txt"
{
  echo "cudajit tensor-core benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $commit"
  device_line
  echo "python: $("$PYTHON" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1)"
  echo "cudajit binary: ${bin:-missing}; kernels: ${kernels[*]:-all}"
} >"$header"
cat "$header" | tee -a "$log"
suite_start=$SECONDS

# 1. nvcc (TC_NVCC_BIN: one built beforehand from the same tc.cu, to save the build here)
nvcc_bin="${TC_NVCC_BIN:-}"
if [ -z "$nvcc_bin" ]; then
  step nvcc-build "$NVCC" -O3 -std=c++17 -arch=sm_90 -o "$work/tc_nvcc" "$here/cuda/tc.cu"
  nvcc_bin="$work/tc_nvcc"
fi
if [ -x "$nvcc_bin" ]; then step nvcc "$nvcc_bin" "${kernels[@]}"; fi

# 2. cudajit (ahead-of-time PTX when the bundle embedded it, else libnvvm here; a fresh
#    disk cache), with the nvcc twins (tc.cu's kernels as a cubin, $TC_TWIN if given)
#    timed in the same process on the same buffers, interleaved launch by launch
#    (bench/tc_twin.rs says why: placement moves the 8192³ GEMMs by up to 12%).
twin="${TC_TWIN:-}"
if [ -z "$twin" ]; then
  step twin-build "$NVCC" -O3 -std=c++17 -arch=sm_90 -cubin -o "$work/tc_twins.cubin" "$here/cuda/tc.cu"
  twin="$work/tc_twins.cubin"
fi
#    cuBLAS is timed there too (bench/tc_cublas.rs), loaded at run time by cudarc, which
#    asks the loader for `libcublas.so` before `libcublas.so.13`: the toolkit's folder
#    first (it has both names, and the loader's cache finds it anyway: 13.1.0.3 on the
#    H200 machine, s41), else torch's nvidia/*/lib (only libcublas.so.13 there);
#    $TC_CUBLAS_DIR overrides both. The bench prints the file it loaded.
cublas_dir="${TC_CUBLAS_DIR:-}"
if [ -z "$cublas_dir" ]; then
  torch_cublas="$("$PYTHON" -c 'import glob, os, torch; d = os.path.dirname(os.path.dirname(torch.__file__)); print(next(iter(sorted(glob.glob(d + "/nvidia/**/libcublas.so.*", recursive=True))), ""))' 2>/dev/null)"
  for candidate in /usr/local/cuda/lib64/libcublas.so.* "$torch_cublas"; do
    if [ -f "$candidate" ]; then cublas_dir="$(dirname "$candidate")"; break; fi
  done
fi
echo "libcublas for the in-process cuBLAS: ${cublas_dir:-none found in /usr/local/cuda/lib64 nor torch nvidia/*/lib}" | tee -a "$log"
if [ -n "$bin" ]; then
  chmod +x "$bin" 2>/dev/null || true
  step cudajit env CUDAJIT_CACHE_DIR="$work/cudajit-cache" TC_TWIN="$twin" \
    LD_LIBRARY_PATH="${cublas_dir:+$cublas_dir:}${LD_LIBRARY_PATH:-}" "$bin" "${kernels[@]}"
else
  echo "=== cudajit: no tc binary (run cargo xtask gpu-bundle on the development machine)" | tee -a "$log"
  failed+=(cudajit-missing)
fi

# 3. The libraries, in the same run
step references env PYTHONUNBUFFERED=1 "$PYTHON" "$here/cuda/tc_reference.py" "${kernels[@]}"

# 4. The table
echo "=== suite took $((SECONDS - suite_start)) s" | tee -a "$log"
grep '^RESULT ' "$log" >"$work/results.txt" || true
echo
"$PYTHON" "$here/report_tc.py" "$work/results.txt" "$header" | tee "$work/tc.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$work/tc.txt"
fi
if [ -n "${OUT:-}" ]; then
  cp "$work/tc.txt" "$OUT/tc.txt"
  cp "$log" "$OUT/tc-log.txt"
fi
[ ${#failed[@]} -eq 0 ]
