#!/usr/bin/env bash
# What #[kernel] adds to a crate's build: generates a crate with 50 kernels (and one
# device function each), builds it once to warm the dependencies, then times a
# rebuild of the crate alone (`touch` + `cargo check`, issue 27's measure; `build` as
# the second argument times `cargo build`, codegen of the expansion included),
# against the same 50 functions written as plain Rust functions without the
# attribute. Runs on the development machine (no GPU, no CUDA needed: the macro does
# no I/O).
#   usage: bash bench/macro_cost.sh [runs] [check|build]
# MACRO_COST_DIR=dir keeps the crates and their target directory there (a second run
# then skips the dependencies' build, minutes on the shared 2-core machine);
# MACRO_COST_SKIP_OPT=1 leaves out the build-override crate (its optimised proc-macro
# dependencies are another full build).
# MACRO_COST_IR=1 also counts the instructions rustc executes for each crate's check
# (valgrind's callgrind, its own target directory: a first run builds the dependencies
# once more): unlike wall time, the count does not move with the machine's load, so two
# versions of the macros compare exactly on a shared machine.
# Wall time is the bar's measure; CPU time (user + sys of cargo and rustc) is printed
# beside it because on a loaded machine wall time mostly measures the other builds.
# Prints the table, then `RESULT macro_cost_extra_s <s> ...` (the attributes' cost in
# the default dev profile; the build-override's figure beside it): copy that line into bench/macro_cost_latest.txt,
# which bench/report.py shows beside the GPU run's rows (issue 27's bar: <= 0.5 s).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
mode=${2:-check}
case "$mode" in check | build) ;; *) echo "mode: check or build, not $mode" >&2; exit 2 ;; esac
if [ -n "${MACRO_COST_DIR:-}" ]; then
  work=$MACRO_COST_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

make_crate() { # name, with_macro(0|1), extra Cargo.toml lines
  local dir=$work/$1
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.1.0"
edition = "2021"
[dependencies]
cudajit = { path = "$repo" }
[workspace]
$3
TOML
  {
    echo "#![allow(dead_code, unused)]"
    echo "use cudajit::prelude::*;"
    for i in $(seq 1 50); do
      if [ "$2" = 1 ]; then echo "#[device]"; fi
      echo "fn scale_$i(x: f32, k: f32) -> f32 { x.mul_add(k, $i.0) }"
      if [ "$2" = 1 ]; then echo "#[kernel]"; fi
      cat <<RS
fn kernel_$i(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
    let i = $( [ "$2" = 1 ] && echo "grid(1)" || echo "0usize" );
    if i < out.len() && (i as u32) < n {
        let mut acc = 0.0f32;
        for k in 0..4 {
            acc += scale_$i(a[i], k as f32) * b[i].sqrt();
        }
        out[i] = if acc > 1.0 { acc.ln() } else { acc };
    }
}
RS
    done
  } >"$dir/src/lib.rs"
}

time_rebuild() { # dir -> "wall cpu": medians of $runs rebuilds, seconds
  local dir=$1
  (cd "$dir" && CARGO_TARGET_DIR=$work/target cargo "$mode" -q 2>/dev/null)
  for _ in $(seq 1 "$runs"); do
    touch "$dir/src/lib.rs"
    local t0 t1 cpu
    t0=$(date +%s.%N)
    # `times` as the subshell's last command: its children's user and sys time (cargo, rustc).
    cpu=$(cd "$dir" && CARGO_TARGET_DIR=$work/target cargo "$mode" -q && times)
    cpu=$(echo "$cpu" | tail -1 | tr 'ms' '  ' | awk '{print $1 * 60 + $2 + $3 * 60 + $4}')
    t1=$(date +%s.%N)
    echo "$(echo "$t1 - $t0" | bc) $cpu"
  done >"$work/times"
  echo "$(median 1) $(median 2)"
}

median() { # column of $work/times -> its median
  cut -d' ' -f"$1" "$work/times" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# Proc macros run as built in the dev profile (unoptimised) unless the crate asks
# for optimised build dependencies, which is what we recommend in the README.
optimised=$'[profile.dev.build-override]\nopt-level = 3'
make_crate with_kernels 1 ""
make_crate plain_functions 0 ""
read -r with with_cpu <<<"$(time_rebuild "$work/with_kernels")"
read -r plain plain_cpu <<<"$(time_rebuild "$work/plain_functions")"
if [ "${MACRO_COST_SKIP_OPT:-0}" = 1 ]; then
  with_opt=nan
else
  make_crate with_kernels_opt 1 "$optimised"
  read -r with_opt _ <<<"$(time_rebuild "$work/with_kernels_opt")"
fi
extra() { echo "$1 - $2" | bc 2>/dev/null || echo nan; }
load=$(cut -d' ' -f1 /proc/loadavg)
printf 'same functions without the attributes:             %.2f s, %.2f s CPU (median of %s cargo %s runs)\n' "$plain" "$plain_cpu" "$runs" "$mode"
printf '50 #[kernel] + 50 #[device], default dev profile:  %.2f s (+%.2f s), %.2f s CPU (+%.2f s)\n' \
  "$with" "$(extra "$with" "$plain")" "$with_cpu" "$(extra "$with_cpu" "$plain_cpu")"
[ "$with_opt" = nan ] ||
  printf '  with build-override opt-level = 3:               %.2f s (+%.2f s)\n' "$with_opt" "$(extra "$with_opt" "$plain")"
printf 'RESULT macro_cost_extra_s %.2f mode=cargo_%s,with_s=%.2f,plain_s=%.2f,cpu_extra_s=%.2f,with_cpu_s=%.2f,plain_cpu_s=%.2f,with_opt_extra_s=%s,runs=%s,load=%s,commit=%s,machine=%s\n' \
  "$(extra "$with" "$plain")" "$mode" "$with" "$plain" "$(extra "$with_cpu" "$plain_cpu")" "$with_cpu" "$plain_cpu" \
  "$( [ "$with_opt" = nan ] && echo nan || printf '%.2f' "$(extra "$with_opt" "$plain")")" "$runs" "$load" \
  "$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(hostname)"

# Instructions (MACRO_COST_IR=1): each crate's rustc under callgrind, the second of two
# rebuilds (the first after a change of the macros also rebuilds incremental state).
if [ "${MACRO_COST_IR:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "MACRO_COST_IR=1 needs valgrind" >&2; exit 2; }
  cat >"$work/callgrind-rustc.sh" <<'WRAP'
#!/usr/bin/env bash
# RUSTC_WRAPPER: the measured crates' rustc under callgrind, the others as they are.
case " $* " in
  *" --crate-name with_kernels "* | *" --crate-name plain_functions "*)
    exec valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>>"$CALLGRIND_LOG" ;;
esac
exec "$@"
WRAP
  chmod +x "$work/callgrind-rustc.sh"
  instructions() { # dir -> millions of instructions of its rustc's check
    local log=$work/callgrind.log
    for _ in 1 2; do
      rm -f "$log"
      touch "$1/src/lib.rs"
      (cd "$1" && CALLGRIND_LOG=$log RUSTC_WRAPPER=$work/callgrind-rustc.sh \
        CARGO_TARGET_DIR=$work/target-ir cargo check -q 2>/dev/null)
    done
    awk '/Collected/ {printf "%.0f", $4 / 1e6}' "$log"
  }
  with_ir=$(instructions "$work/with_kernels")
  plain_ir=$(instructions "$work/plain_functions")
  printf 'instructions of rustc: %s M with the attributes, %s M without (+%s M)\n' "$with_ir" "$plain_ir" "$((with_ir - plain_ir))"
  printf 'RESULT macro_cost_extra_instructions_m %s with_m=%s,plain_m=%s,commit=%s\n' "$((with_ir - plain_ir))" "$with_ir" "$plain_ir" \
    "$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
fi
