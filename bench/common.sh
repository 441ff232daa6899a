# Shared by the benchmark runners (run.sh, run_simt.sh): sourced after they set
# `here` (their folder), `log` (the full log) and `failed=()`.

first_existing() {  # first_existing PATH...: the first that is a file
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

wheel_dir_in() {  # wheel_dir_in DIR...: the first holding the numpy wheel Numba needs
  for d in "$@"; do
    if [ -n "$d" ] && compgen -G "$d/numpy-*.whl" >/dev/null; then echo "$d"; return 0; fi
  done
  return 1
}

commit_of() {  # commit_of COMMIT_FILE...: the first file's commit, else git's, else unknown
  local file
  if file="$(first_existing "$@")"; then
    cat "$file"
  else
    git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown
  fi
}

device_line() {  # what ran where; the card is measured as found, its clocks only read
  local smi
  if smi="$(nvidia-smi --query-gpu=name,driver_version,memory.total,pstate,clocks.sm,clocks.mem,temperature.gpu \
    --format=csv,noheader 2>/dev/null)"; then
    echo "device (name, driver, memory, pstate, SM clock, memory clock, temperature): $smi"
  else
    echo "device: (nvidia-smi failed)"
  fi
  echo "nvcc: $("$NVCC" --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo missing)"
}

export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$CUDA_HOME/bin:$PATH"
NVCC="${NVCC:-nvcc}"
