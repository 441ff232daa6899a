#!/usr/bin/env bash
# Issue 25 on the GPU machine, in one run: NVIDIA's tools on cudajit kernels must name
# the Rust file:line. Runs examples/debug_targets (built on the development machine:
# `cargo build --release --example debug_targets`) under
#   compute-sanitizer memcheck   (a planted out-of-bounds write, boundscheck = false)
#   compute-sanitizer racecheck  (a planted shared-memory race)
#   ncu --page source            (a stencil kernel: instructions by Rust line)
#   cuda-gdb in batch mode       (stop at a Rust line in a kernel, print locals)
#   cudajit::inspect             (PTX and SASS with the Rust lines interleaved)
# and prints `PASS`/`FAIL` per tool, grepping each tool's output for the marked line
# of examples/debug_targets.rs.
#
#   bash bench/debug_tools.sh [path/to/debug_targets]
#
# Finds the binary at $1, $DEBUG_BIN, ./debug_targets, ../bundle/debug_targets,
# ../target/release/examples/debug_targets. Writes the whole log to
# $OUT/debug-tools.txt when $OUT is set. Exit status: the number of failed checks.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cudajit-debug.XXXXXX")"
log="$work/log.txt"
failed=()
# shellcheck source=common.sh
source "$here/common.sh"

bin="$(first_existing "${1:-}" "${DEBUG_BIN:-}" "$here/debug_targets" \
  "$here/../bundle/debug_targets" "$here/../target/release/examples/debug_targets")" || {
  echo "debug_targets binary not found" >&2; exit 1; }
source_file="examples/debug_targets.rs"
source_text="$here/../$source_file"
line_of() {  # line_of MARKER: the line of examples/debug_targets.rs holding it
  if [ -f "$source_text" ]; then grep -n "$1" "$source_text" | head -1 | cut -d: -f1
  else echo "?"; fi
}
tool() {  # tool NAME: the tool's path (PATH, then the CUDA toolkit)
  command -v "$1" 2>/dev/null || first_existing "/usr/local/cuda/bin/$1" \
    "/usr/local/cuda/compute-sanitizer/$1" || echo ""
}
run_tool() {  # run_tool CMD...: run it (a tool reporting errors exits non-zero: fine)
  echo "=== $*" >>"$log"  # to the log only: a check must not match the command line
  "$@" || true
}
check() {  # check NAME FILE PATTERN: PASS when FILE has a line matching PATTERN
  if grep -Eq "$3" "$2"; then
    echo "PASS $1: $(grep -Em1 "$3" "$2")" | tee -a "$log"
  else
    echo "FAIL $1: no line matching /$3/ in its output" | tee -a "$log"
    failed+=("$1")
  fi
}

{
  echo "cudajit debug tools, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(commit_of "$here/../bundle/COMMIT" "$here/../COMMIT" "$here/COMMIT")"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
  echo "binary: $bin"
} | tee -a "$log"

# Every kernel is compiled at run time with Rust line tables (the default).
export CUDAJIT_AOT=0 CUDAJIT_CACHE_DIR="$work/cache"

sanitizer="$(tool compute-sanitizer)"
if [ -n "$sanitizer" ]; then
  oob_line="$(line_of "// OOB-WRITE")"
  run_tool "$sanitizer" --tool memcheck --show-backtrace device "$bin" oob >"$work/memcheck.txt" 2>&1
  tee -a "$log" <"$work/memcheck.txt"
  check "memcheck names the out-of-bounds write" "$work/memcheck.txt" "debug_targets.rs:$oob_line"
  race_line="$(line_of "// SHARED-RACE")"
  run_tool "$sanitizer" --tool racecheck --racecheck-report all "$bin" race >"$work/racecheck.txt" 2>&1
  tee -a "$log" <"$work/racecheck.txt"
  check "racecheck names the shared-memory race" "$work/racecheck.txt" "debug_targets.rs:$race_line"
  run_tool "$sanitizer" --tool initcheck "$bin" stencil >"$work/initcheck.txt" 2>&1
  tee -a "$log" <"$work/initcheck.txt"
  check "initcheck runs clean on the stencil" "$work/initcheck.txt" "ERROR SUMMARY: 0 errors"
else
  echo "FAIL compute-sanitizer: not found" | tee -a "$log"; failed+=(compute-sanitizer)
fi

ncu="$(tool ncu)"
if [ -n "$ncu" ]; then
  stencil_line="$(line_of "// STENCIL")"
  run_tool "$ncu" --kernel-name stencil --launch-count 1 --section SourceCounters \
    --import-source yes --page source --print-source cuda,sass --csv "$bin" stencil \
    >"$work/ncu.txt" 2>&1
  tee -a "$log" <"$work/ncu.txt"
  check "ncu attributes instructions to the stencil's Rust line" "$work/ncu.txt" \
    "debug_targets.rs.*$stencil_line|\"$stencil_line\""
else
  echo "FAIL ncu: not found" | tee -a "$log"; failed+=(ncu)
fi

gdb="$(tool cuda-gdb)"
if [ -n "$gdb" ]; then
  # `#[kernel(debug = true)]`: stop at the Rust line, list the Rust locals, then in
  # thread 5 print `i` (5) and `scaled` (a[5] * 3 = 15).
  stop_line="$(line_of "// GDB-STOP")"
  run_tool "$gdb" -batch -ex "set breakpoint pending on" \
    -ex "break debug_targets.rs:$stop_line" -ex "run" -ex "info locals" -ex "info args" \
    -ex "cuda thread 5" -ex "print i" -ex "print scaled" -ex "delete" -ex "continue" \
    --args "$bin" gdb >"$work/gdb.txt" 2>&1
  tee -a "$log" <"$work/gdb.txt"
  check "cuda-gdb stops at the Rust line" "$work/gdb.txt" "hit Breakpoint.*debug_targets.rs:$stop_line"
  check "cuda-gdb info locals names the Rust local" "$work/gdb.txt" '^scaled = [0-9]'
  check "cuda-gdb info args shows the slice" "$work/gdb.txt" '^a = \{data_ptr = 0x[0-9a-f]+, length = 64\}'
  check "cuda-gdb prints i in thread 5" "$work/gdb.txt" '^\$1 = 5$'
  check "cuda-gdb prints scaled in thread 5" "$work/gdb.txt" '^\$2 = 15$'
else
  echo "FAIL cuda-gdb: not found" | tee -a "$log"; failed+=(cuda-gdb)
fi

# `cudajit::inspect`: the stencil's PTX and SASS with its Rust lines interleaved.
stencil_line="$(line_of "// STENCIL")"
run_tool "$bin" inspect >"$work/inspect.txt" 2>&1
grep -n -B2 -A6 "debug_targets.rs:$stencil_line:" "$work/inspect.txt" | head -60 >>"$log"
check "inspect: PTX under the stencil's Rust line" "$work/inspect.txt" \
  "^[[:space:]]+// examples/debug_targets.rs:$stencil_line: out\[i\]"
sass_lines="$(grep -A1 "debug_targets.rs:$stencil_line:" "$work/inspect.txt" | grep -c '/\*[0-9a-f]*\*/')"
if [ "$sass_lines" -gt 0 ]; then
  echo "PASS inspect: SASS under the stencil's Rust line ($sass_lines)" | tee -a "$log"
else
  echo "FAIL inspect: no SASS instruction under the stencil's Rust line" | tee -a "$log"
  failed+=("inspect SASS")
fi

run_tool "$bin" print >"$work/print.txt" 2>&1
tee -a "$log" <"$work/print.txt"
check "println! in a kernel prints Rust's text" "$work/print.txt" '^hello from thread 7:   49 16.33$'

echo "failed: ${#failed[@]} ${failed[*]:-}" | tee -a "$log"
if [ -n "${OUT:-}" ]; then cp "$log" "$OUT/debug-tools.txt"; fi
exit "${#failed[@]}"
