#!/usr/bin/env bash
# TMA on the H200: the round-trip kernel's PTX (written locally by
#   CUDAJIT_TMA_PTX_OUT=DIR cargo test -p kernel-device --lib back::nvvm::tests::tma
# with CUDAJIT_NVVM_PATH and CUDAJIT_PTXAS set) for compute_90 and compute_90a, run by
# tma_check.py through the driver API for thirteen maps (every swizzle, boxes at the
# edges, negative coordinates, inner coordinates off a 16-byte boundary, a box half the
# swizzle span wide, a NaN fill), each in a process of its own. Run from a folder holding
# tma_check.py and the two PTX files; results go to $OUT (tma_h200_<arch>.txt) and the
# summary to stdout.
set -euo pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
for arch in 90 90a; do
    "$PY" tma_check.py "$arch"
done
