#!/usr/bin/env bash
# A/B of cudajit's FA3 attention binaries against the nvcc twin, in ONE GPU call, to
# tell a change of code from run-to-run variance (issue 24): the twin
# (bench/cuda/hopper_attention.cu, built once here) and each given `hopper_attention`
# binary run as separate processes, ROUNDS times, in an order that rotates every round
# (so no binary always runs first, or just after the twin). nvidia-smi samples the SM
# clock, power and temperature throughout; each process's window gets its lowest clock
# and highest power. Then, with NCU_CYCLES=1, Nsight Compute on the first two attention
# launches of each program at D = 128 with the clocks locked at base: elapsed cycles and
# instructions, a time that no clock or power state moves. PyTorch's cuDNN backend runs
# once at the end.
#
#   bash bench/run_hopper_attention_ab.sh ROUNDS LABEL=BIN... [-- D ...]   (default D: 128 64)
#
# Writes $OUT/hopper-attention-ab.txt (the table of bench/report_hopper_attention_ab.py)
# and $OUT/hopper-attention-ab-log.txt when $OUT is set. Exit status 0 when every
# process ran and checked its results.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-attention-ab.XXXXXX")"
log="$work/log.txt"
failed=()
# shellcheck source=common.sh
source "$here/common.sh"
PYTHON="${PYTHON:-python3}"

rounds="$1"; shift
labels=(); bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  labels+=("${1%%=*}"); bins+=("${1#*=}"); shift
done
[ "${1:-}" = "--" ] && shift
dims=("$@")
[ ${#dims[@]} -gt 0 ] || dims=(128 64)

{
  echo "cudajit FA3 attention A/B, $(date -u '+%Y-%m-%d %H:%M:%S UTC'); rounds $rounds; head dims ${dims[*]}"
  device_line
  for i in "${!labels[@]}"; do
    echo "binary ${labels[$i]}: ${bins[$i]} (commit $(cat "$(dirname "${bins[$i]}")/COMMIT" 2>/dev/null || echo unknown))"
  done
} | tee "$work/header.txt" | tee -a "$log"

# The SM clock, power, temperature and clock-event reasons every 50 ms.
smi_fields=""
for reasons in clocks_event_reasons.active clocks_throttle_reasons.active ""; do
  f="timestamp,clocks.sm,power.draw,temperature.gpu${reasons:+,$reasons}"
  if nvidia-smi --query-gpu="$f" --format=csv,noheader,nounits >/dev/null 2>&1; then smi_fields="$f"; break; fi
done
if [ -n "$smi_fields" ]; then
  nvidia-smi --query-gpu="$smi_fields" --format=csv,noheader,nounits -lms 50 >"$work/smi.csv" 2>/dev/null &
  smi_pid=$!
fi

step nvcc-build "$NVCC" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o "$work/twin" "$here/cuda/hopper_attention.cu"
[ -x "$work/twin" ] || { echo "no twin" | tee -a "$log"; exit 1; }

names=(twin "${labels[@]}")
programs=("$work/twin" "${bins[@]}")
windows="$work/windows.txt"
: >"$windows"
n=${#names[@]}
for ((r = 1; r <= rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    i=$(( (k + r - 1) % n ))
    # Odd rounds forwards, even rounds backwards: each program follows each other one.
    [ $((r % 2)) -eq 0 ] && i=$(( n - 1 - i ))
    name=${names[$i]}
    start=$(date '+%Y/%m/%d %H:%M:%S.%N')
    env CUDAJIT_CACHE_DIR="$work/cache-$name" "${programs[$i]}" "${dims[@]}" >"$work/out.txt" 2>&1
    rc=$?
    end=$(date '+%Y/%m/%d %H:%M:%S.%N')
    echo "=== round $r $name (exit $rc)" >>"$log"
    cat "$work/out.txt" >>"$log"
    [ $rc -eq 0 ] || failed+=("$name-round$r")
    grep '^RESULT ' "$work/out.txt" | sed "s/^RESULT /RESULT $r $name /" >>"$work/results.txt"
    echo "$r $name $start $end" >>"$windows"
  done
done

# The timings so far, in case a later step runs out of the call's time.
[ -n "${OUT:-}" ] && cp "$work/results.txt" "$windows" "$OUT/" 2>/dev/null

if [ "${NCU_CYCLES:-0}" = 1 ]; then
  metrics=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum
  for ((i = 0; i < n; i++)); do
    echo "=== ncu ${names[$i]}" >>"$log"
    timeout 40 ncu --csv --clock-control base --metrics "$metrics" -k regex:attention_fa3 -c 2 \
      env CUDAJIT_CACHE_DIR="$work/cache-${names[$i]}" "${programs[$i]}" 128 >"$work/ncu.txt" 2>&1
    echo "=== ncu ${names[$i]} exit $?" >>"$log"
    cat "$work/ncu.txt" >>"$log"
    grep '^"' "$work/ncu.txt" | sed "s/^/${names[$i]},/" >>"$work/ncu.csv"
  done
fi

step torch env PYTHONUNBUFFERED=1 "$PYTHON" "$here/cuda/tc_reference.py" "${dims[@]/#/attention_d}"
grep '^RESULT attention_d[0-9]*\.cudnn ' "$log" | sed 's/^RESULT /RESULT 0 torch /' >>"$work/results.txt"
[ -n "${smi_pid:-}" ] && kill "$smi_pid" 2>/dev/null

echo
"$PYTHON" "$here/report_hopper_attention_ab.py" "$work/header.txt" "$work/results.txt" "$windows" "$work/smi.csv" "$work/ncu.csv" \
  | tee "$work/hopper-attention-ab.txt"
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}" | tee -a "$work/hopper-attention-ab.txt"; fi
if [ -n "${OUT:-}" ]; then
  cp "$work/hopper-attention-ab.txt" "$OUT/hopper-attention-ab.txt"
  cp "$log" "$OUT/hopper-attention-ab-log.txt"
  cp "$work/smi.csv" "$OUT/hopper-attention-ab-smi.csv" 2>/dev/null
fi
[ ${#failed[@]} -eq 0 ]
