#!/usr/bin/env bash
# Issue 28's bench on a host with two GPUs (the device kind nvidia-h200-x2), in ONE
# run: cudajit's peer copy and all_reduce (bench/multi_gpu.rs), PyTorch's on the same
# GPUs (bench/multi_gpu_torch.py), and the multi-GPU example against one GPU.
#
#   bash bench/run_multi.sh DIR    # DIR holds the release binaries multi_gpu and nbody_multi
#
# Writes the table to $OUT/multi.txt (and prints it). NCCL: cudajit finds the
# library by itself (the nvidia-nccl wheel PyTorch uses, or the system's); the first
# cudajit run below checks exactly that, without CUDAJIT_NCCL_PATH.
set -u
bin="${1:-.}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log="${OUT:-/tmp}/multi-log.txt"
: >"$log"
{
  echo "cudajit multi-GPU bench, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(cat "$bin/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  nvidia-smi topo -m | head -4
} | tee -a "$log"
"$bin/multi_gpu" 2>&1 | tee -a "$log"
python3 "$here/multi_gpu_torch.py" 2>&1 | tee -a "$log"
"$bin/nbody_multi" 2>&1 | tee -a "$log"
python3 - "$log" <<'PY' | tee "${OUT:-/tmp}/multi.txt"
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"RESULT (\w+) (\w+) (.*)", line.strip())
    if m:
        rows[(m.group(1), m.group(2))] = dict(kv.split("=") for kv in m.group(3).split())
def ratio(row, key):
    c, t = rows.get(("multi", row)), rows.get(("torch", row))
    if not c or not t:
        return None, None, None
    return float(c[key]), float(t[key]), float(c[key]) / float(t[key])
print("| row | cudajit | PyTorch | ratio | bar |")
print("| --- | --- | --- | --- | --- |")
for row, key, unit, bar in [("peer_copy_1GiB", "gbps", "GB/s", 0.95), ("all_reduce_1MiB", "busbw", "GB/s busbw", None),
                            ("all_reduce_64MiB", "busbw", "GB/s busbw", None), ("all_reduce_1GiB", "busbw", "GB/s busbw", 0.95)]:
    c, t, r = ratio(row, key)
    if c is None:
        print(f"| {row} | missing | missing | | |")
        continue
    verdict = "" if bar is None else (f">= {bar} {'met' if r >= bar else 'NOT met'}")
    print(f"| {row} | {c:.1f} {unit} | {t:.1f} {unit} | {r:.3f} | {verdict} |")
nb = rows.get(("nbody_multi", "devices=2")) or next((v for k, v in rows.items() if k[0] == "nbody_multi"), None)
PY
grep "^RESULT nbody_multi" "$log" | sed 's/^/example: /' | tee -a "${OUT:-/tmp}/multi.txt"
