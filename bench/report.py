#!/usr/bin/env python3
"""Turns the `RESULT <name> <median_us> <key=value,...>` lines of one bench/run.sh run
into the comparison table, with the issue's two criteria checked.

Usage: report.py RESULTS_FILE [HEADER_FILE]   (standard library only: runs anywhere)
"""

import sys

# (result name, label) in table order. Ratios are against the first row of a table
# whose name is the baseline below.
KERNEL_ROWS = [
    ("kernel_nvcc", "nvcc -O3 -arch=sm_90, CUDA C++ <<<>>>"),
    ("kernel_nvcc_ptx_cudarc", "nvcc's PTX launched by cudarc (Rust process)"),
    ("kernel_cudajit", "cudajit #[kernel] (bounds-checked)"),
    ("kernel_cudajit_nocheck", "cudajit #[kernel(boundscheck = false)]"),
    ("kernel_numba", "Numba @cuda.jit"),
]
LAUNCH_ROWS = [
    ("launch_cuda_runtime", "CUDA runtime <<<>>> (C++)"),
    ("launch_cudarc_driver", "cudarc result::launch_kernel (bare cuLaunchKernel)"),
    ("launch_driver_blocking_stream", "bare cuLaunchKernel on cudajit's created stream"),
    ("launch_driver_null_stream", "bare cuLaunchKernel on the legacy NULL stream"),
    ("launch_cudarc", "raw cudarc launch_builder"),
    ("launch_cudajit", "cudajit .launch(cfg.stream(&s), ..)"),
    ("launch_cudajit_default_stream", "cudajit launch on its default stream"),
    ("launch_cudajit_alternating_streams", "cudajit, every launch on the other of two streams (cross-stream ordering)"),
    ("launch_cudajit_generic", "cudajit generic kernel (vecadd_generic::<f32>)"),
    ("launch_numba", "Numba kernel[grid, block, stream](..)"),
]
FIRST_ROWS = [
    ("first_call_cudajit", "cudajit vecadd (its module compiled while the GPU opened, + launch)"),
    ("first_call_cudajit_nocheck", "cudajit vecadd_nocheck"),
    ("second_call_cudajit", "cudajit vecadd's 2nd call (its launch-proven copy)"),
    ("first_call_cold_cudajit", "fresh process, driver JIT cache cold: vecadd"),
    ("first_call_cold_cudajit_nocheck", "  then vecadd_nocheck"),
    ("first_call_cold_serial_cudajit", "the same, not compiled while the GPU opened: vecadd"),
    ("first_call_cold_serial_cudajit_nocheck", "  then vecadd_nocheck"),
    ("first_call_warm_cudajit", "fresh process, driver JIT cache warm: vecadd"),
    ("first_call_warm_cudajit_nocheck", "  then vecadd_nocheck"),
    ("first_call_aot_sass_cudajit", "fresh process, AOT-built, sm_90 machine code embedded: vecadd"),
    ("first_call_aot_sass_cudajit_nocheck", "  then vecadd_nocheck"),
    ("first_call_aot_ptx_cudajit", "the same binary, its embedded PTX JIT-compiled (cache cold): vecadd"),
    ("first_call_aot_ptx_cudajit_nocheck", "  then vecadd_nocheck"),
    ("first_call_numba", "Numba vecadd (dispatch + compile + load + launch)"),
]
# The first-call bars read the fresh child whose driver JIT cache is cold (a user's
# first run; vecadd_launch's `first_call_children`), else the bench's own process.
FIRST_CALL_BARS = {
    "first_call_cudajit": "first_call_cold_cudajit",
    "first_call_cudajit_nocheck": "first_call_cold_cudajit_nocheck",
}
# Issue 9: a new generic instantiation's first launch (host time, fresh child process),
# and a later launch's extra host time over a non-generic kernel's.
INSTANCE_ROWS = [
    ("instance_first_cold", "generic f32: fresh process, empty disk cache"),
    ("instance_second_cold", "then generic f64 in that process (a 2nd compile)"),
    ("instance_first_disk", "generic f32: fresh process, found on disk"),
    ("instance_second_disk", "then generic f64, found on disk"),
]
# (name, limit in us, what): absolute bars.
INSTANCE_CRITERIA = [
    ("instance_first_cold", 50_000.0, "first launch of a new instantiation (fresh process, empty cache) under 50 ms"),
    ("instance_second_cold", 50_000.0, "first launch of a second instantiation in the process under 50 ms"),
    ("generic_launch_extra", 10.0, "later launch of an instantiation: under 10 us extra host time"),
]
# Issue 27: a CUDA graph of 100 tiny launches replayed, host time per kernel node.
GRAPH_ROWS = [
    ("graph_node_empty_cudarc", "driver floor: cudarc graph of an empty kernel"),
    ("graph_node_cudarc", "cudarc stream capture, cuGraphLaunch"),
    ("graph_node_cudajit", "cudajit stream.capture(..), graph.launch(&s)"),
    ("graph_node_cudajit_serial", "cudajit, consecutive nodes not overlapped"),
    ("graph_node_empty_cudajit", "cudajit graph of an empty kernel"),
    ("graph_node_empty_cudajit_serial", "cudajit empty kernel, not overlapped"),
]
# Issue 27's bars: (name, baseline or None, limit (ratio, or us when absolute), what).
LATENCY_CRITERIA = [
    # Paired rounds (`pair_*`, bench/launch_profile.rs): the value is already the median
    # ratio to the bare launch on the same stream, taken round by round.
    ("pair_launch_cudajit", None, 1.01, "launch on a created stream within 1% of bare cuLaunchKernel (same stream, paired rounds)"),
    ("pair_launch_cudajit_default_stream", None, 1.01, "launch on the default stream within 1% of bare cuLaunchKernel (paired rounds)"),
    ("pair_launch_cudajit_alternating_streams", None, 1.15, "alternating streams within 15% of bare cuLaunchKernel on one stream (paired rounds)"),
    ("first_call_cudajit", None, 15_000.0, "first call of a bounds-checked kernel under 15 ms (driver JIT cache cold)"),
    ("first_call_cudajit_nocheck", None, 10_000.0, "first call of an unchecked kernel under 10 ms (driver JIT cache cold)"),
    ("instance_first_disk", None, 2_000.0, "first launch found in the disk cache (fresh process) under 2 ms"),
    ("graph_node_cudajit", None, 1.0, "graph replay under 1 us per kernel node"),
]
# The driver's two entries (kernelParams, or one packed buffer through `extra`): where
# the packed form's bare launch is the faster in the run (its pair's ratio below 1), a
# bar on that stream is held against it: (bar, packed-vs-params pair, ours-vs-packed pair).
FASTER_BARE = [
    ("pair_launch_cudajit", "pair_driver_packed_buffer", "pair_launch_cudajit_vs_packed"),
    ("pair_launch_cudajit_default_stream", "pair_driver_packed_buffer_null_stream",
     "pair_launch_cudajit_default_vs_packed"),
]


def bar_pair(results, name):
    """The pair a launch bar is judged on: against the faster of the two bare forms."""
    for bar, packed, ours in FASTER_BARE:
        if bar == name and packed in results and ours in results and results[packed][0] < 1.0:
            return ours, " against the packed-buffer bare launch, the faster form in this run"
    return name, ""


# Issue 27's per-launch profile: the stages in launch order (kernel_host::profile::Stage).
PROFILE_STAGES = [
    ("bind", "context bound + reset guard"),
    ("panic_record", "stream's panic record, launcher noted"),
    ("validate", "shape checked, health"),
    ("kernel_lookup", "loaded kernel found"),
    ("argument_check", "argument types/devices, static shared"),
    ("stream_ordering", "cross-stream order, pending reads"),
    ("marshal", "parameter slots, proven copy chosen"),
    ("driver", "cuLaunchKernelEx"),
    ("after_launch", "reads left pending"),
]
PROFILE_VARIANTS = [
    ("launch_cudajit", "stream"),
    ("launch_cudajit_default_stream", "default"),
    ("launch_cudajit_alternating_streams", "alternating"),
]
# First-launch stages (kernel_host::profile::FirstStage), in order.
# driver_jit_in_module_load is part of module_load (the driver's own clock).
FIRST_STAGES = ["front_end", "module_compiled_while_opening", "disk_lookup", "libnvvm_load", "compile", "module_load",
                "driver_jit_in_module_load", "machine_code_in_module_load", "install", "disk_store"]
FIRST_SITUATIONS = [
    ("first_call_cudajit", "checked"),
    ("first_call_cudajit_nocheck", "unchecked"),
    ("first_call_cold_cudajit", "checked, JIT cold"),
    ("first_call_cold_cudajit_nocheck", "unchecked, JIT cold"),
    ("first_call_cold_serial_cudajit", "checked, JIT cold, serial"),
    ("first_call_cold_serial_cudajit_nocheck", "unchecked, cold, serial"),
    ("first_call_warm_cudajit", "checked, JIT warm"),
    ("first_call_warm_cudajit_nocheck", "unchecked, JIT warm"),
    ("first_call_aot_sass_cudajit", "checked, AOT machine code"),
    ("first_call_aot_ptx_cudajit", "checked, AOT PTX"),
    ("second_call_cudajit", "checked, copy"),
    ("instance_cold", "generic, empty cache"),
    ("instance_disk", "generic, on disk"),
]
# The macro's build cost is measured on the development machine (bench/macro_cost.sh,
# no GPU): its latest figure is committed beside this script (the GPU bundle copies
# bench/ without results/) and shown with this run's rows.
MACRO_COST_FILE = "macro_cost_latest.txt"
MACRO_COST_LIMIT_S = 0.5
KERNEL_BASE = "kernel_nvcc"
LAUNCH_BASE = "launch_cudarc"
# The criteria: (name, baseline, limit ratio, what).
CRITERIA = [
    ("kernel_cudajit", KERNEL_BASE, 1.05, "kernel within 5% of nvcc -O3"),
    ("kernel_cudajit_nocheck", KERNEL_BASE, 1.05, "unchecked kernel within 5% of nvcc -O3"),
    ("launch_cudajit", LAUNCH_BASE, 1.10, "launch within 10% of raw cudarc"),
]


def parse(path):
    results = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "RESULT":
                extra = {}
                for kv in (parts[3] if len(parts) > 3 else "").split(","):
                    if "=" in kv:
                        k, v = kv.split("=", 1)
                        extra[k] = v
                # A name reported twice (a re-run) keeps its last value.
                results[parts[1]] = (float(parts[2]), extra)
    return results


def table(results, rows, bases, unit_header, extra_col=None):
    """One row per result; one ratio column per baseline in `bases` ((name, header))."""
    out = []
    head = f"  {'':<52} {unit_header:>10}"
    if extra_col:
        head += f" {extra_col[1]:>8}"
    for _, header in bases:
        head += f" {header:>12}"
    out.append(head)
    for name, label in rows:
        if name not in results:
            out.append(f"  {label:<52} {'(missing)':>10}")
            continue
        us, extra = results[name]
        line = f"  {label:<52} {us:>10.3f}"
        if extra_col:
            line += f" {extra.get(extra_col[0], ''):>8}"
        for base, _ in bases:
            base_us = results.get(base, (None,))[0]
            line += f" {us / base_us:>12.3f}" if base_us else f" {'-':>12}"
        out.append(line)
    return out


def same_stream_ratios(results):
    """cudajit's launches against the bare launch on the same kind of stream: what
    cudajit itself adds, apart from the stream kind the bars' baseline differs in."""
    pairs = [
        ("launch_cudajit", "launch_driver_blocking_stream", "created stream"),
        ("launch_cudajit_default_stream", "launch_driver_null_stream", "legacy NULL stream"),
    ]
    out = []
    for name, base, what in pairs:
        if name in results and base in results:
            us, base_us = results[name][0], results[base][0]
            out.append(f"  cudajit over bare cuLaunchKernel on the same {what}: "
                       f"{us / base_us:.3f}x (+{(us - base_us) * 1e3:.0f} ns)")
    if out:
        out = ["Same stream kind (information; the bars' baseline is cudarc's non-blocking stream)"] + out + [""]
    return out


PAIR_ROWS = [
    ("pair_launch_cudajit", "created stream, against bare on it"),
    ("pair_launch_cudajit_default_stream", "default stream, against bare on the NULL stream"),
    ("pair_launch_cudajit_alternating_streams", "alternating, against bare on one stream"),
    ("pair_launch_cudajit_alternating_vs_ordered", "alternating, against bare alternating + 1 event"),
    ("pair_driver_cudajit_function", "bare launch of cudajit's function, against bare"),
    ("pair_driver_packed_buffer", "bare, packed buffer (extra), against kernelParams"),
    ("pair_driver_packed_buffer_null_stream", "the same on the NULL stream"),
    ("pair_launch_cudajit_vs_packed", "created stream, against bare packed on it"),
    ("pair_launch_cudajit_default_vs_packed", "default stream, against bare packed on NULL"),
    ("pair_driver_ex_packed", "bare cuLaunchKernelEx packed, against kernelParams"),
    ("pair_driver_ex_packed_null_stream", "the same on the NULL stream"),
    ("pair_launch_cudajit_vs_ex_packed", "created stream, against bare Ex packed (its floor)"),
    ("pair_launch_cudajit_default_vs_ex_packed", "default stream, against bare Ex packed on NULL"),
]


def launch_chart_table(results):
    """The table `cargo xtask chart-launch` draws: each launch row's paired ratio to the
    bare cuLaunchKernel on one stream, beside the floor a bare program reaches for the same
    row (cuLaunchKernelEx with the packed buffer; for alternating streams, bare launches
    that alternate and order the shared array with one event, whose ratio to the
    single-stream launch is alternating / alternating_vs_ordered)."""
    def ratio(name):
        return results[name][0] if name in results else None

    alternating = ratio("pair_launch_cudajit_alternating_streams")
    over_ordered = ratio("pair_launch_cudajit_alternating_vs_ordered")
    ordered = alternating / over_ordered if alternating and over_ordered else None
    rows = [
        ("created", ratio("pair_launch_cudajit"), ratio("pair_driver_ex_packed")),
        ("default", ratio("pair_launch_cudajit_default_stream"),
         ratio("pair_driver_ex_packed_null_stream")),
        ("alternating", alternating, ordered),
    ]
    if all(ours is None for _, ours, _ in rows):
        return []
    shown = lambda v: f"{v:.3f}" if v is not None else "-"
    out = ["Launch over bare cuLaunchKernel on the same stream(s), paired rounds; floor: the",
           "best bare program for the row (`cargo xtask chart-launch` draws this table)",
           f"{'launch_row':<14} {'cj/bare':>8} {'floor/bare':>10}"]
    out += [f"{name:<14} {shown(ours):>8} {shown(floor):>10}" for name, ours, floor in rows]
    return out + [""]


def paired_table(results):
    """The bars' launch figures: host time of the launch loop alone, cudajit and the bare
    launch interleaved round by round, ratio per round (bench/launch_profile.rs)."""
    if not any(name in results for name, _ in PAIR_ROWS):
        return []
    out = ["Launch against the bare cuLaunchKernel, paired rounds (launch loop only, ratio per",
           "round, median; q1-q3 the spread of the rounds' ratios)",
           f"  {'':<52} {'ratio':>7} {'q1':>7} {'q3':>7} {'ours us':>8} {'bare us':>8}"]
    for name, label in PAIR_ROWS:
        if name not in results:
            out.append(f"  {label:<52} {'(missing)':>7}")
            continue
        ratio, extra = results[name]
        out.append(f"  {label:<52} {ratio:>7.3f} {extra.get('q1_ratio', '-'):>7} "
                   f"{extra.get('q3_ratio', '-'):>7} {extra.get('ours_us', '-'):>8} {extra.get('bare_us', '-'):>8}")
    return out + [""]


def profile_tables(results):
    """The per-launch stage profile (ns per launch, one clock read subtracted) and the
    first launches' stages (ms); nothing when the run has no profile lines."""
    out = []
    if any(f"profile_{v}_total" in results for v, _ in PROFILE_VARIANTS):
        out.append("Where a launch's host time goes: the same launches with the stage profile on,")
        out.append("ns per launch (one clock read subtracted per stage; the profile's total exceeds")
        out.append("the unprofiled time by the clock reads the launch cannot hide; a profiled launch")
        out.append("takes the whole path: launch::fast, which unprofiled launches take, is not staged)")
        head = f"  {'':<52}" + "".join(f" {h:>12}" for _, h in PROFILE_VARIANTS)
        out.append(head)
        for stage, label in PROFILE_STAGES + [("total", "sum of the stages")]:
            line = f"  {stage + ': ' + label:<52}"
            for variant, _ in PROFILE_VARIANTS:
                found = results.get(f"profile_{variant}_{stage}")
                if found is None:
                    line += f" {'-':>12}"
                    continue
                ns, extra = found
                shown = float(extra.get("corrected_ns", ns))
                line += f" {shown:>12.1f}"
            out.append(line)
        clock = next((results[f"profile_{v}_total"][1].get("clock_ns") for v, _ in PROFILE_VARIANTS
                      if f"profile_{v}_total" in results), None)
        if clock:
            out.append(f"  (one clock read: {float(clock):.1f} ns)")
        out.append("")
    cpu = sorted((int(n[len("cpu_host_"):]), v) for n, v in results.items()
                 if n.startswith("cpu_host_") and n[len("cpu_host_"):].isdigit())
    if cpu:
        out.append("The launch path's own work on this host's CPU, no GPU (vecadd_launch --cpu-host-path),")
        out.append("ns per launch, least of 11 rounds; cold: each launch after a 128 KiB sweep, as the")
        out.append("driver call between two launches evicts the path's lines (the launch alone timed)")
        out.append(f"  {'':<52} {'warm':>12} {'cold':>12}")
        for _, (ns, extra) in cpu:
            label = extra.get("stage", "?").replace("__", ", ").replace("_", " ")
            cold = extra.get("cold_ns")
            cold = f"{float(cold):>12.1f}" if cold is not None else f"{'-':>12}"
            out.append(f"  {label:<52} {ns:>12.1f} {cold}")
        out.append("")
    ladder = sorted((int(n[len("ladder_"):]), v) for n, v in results.items()
                    if n.startswith("ladder_") and n[len("ladder_"):].isdigit())
    if ladder and "ladder_bare" in results:
        out.append("The launch path rebuilt stage by stage around real cuLaunchKernelEx calls on the")
        out.append("created stream, ns each rung adds to the bare launch (paired rounds, median;")
        out.append(f"bare: {results['ladder_bare'][0]:.3} us per launch)")
        for _, (ns, extra) in ladder:
            label = extra.get("rung", "?").replace("_", " ")
            out.append(f"  {label:<52} {ns:>12.1f}")
        out.append("")
    situations = [(w, l) for w, l in FIRST_SITUATIONS
                  if any(f"first_stage_{w}_{s}" in results for s in FIRST_STAGES)]
    if situations:
        out.append("First launches by stage, ms (generic rows: the f32 instantiation's, the first")
        out.append("in its process; a stage the launch did not pass is -)")
        out.append(f"  {'':<20}" + "".join(f" {l:>22}" for _, l in situations))
        for stage in FIRST_STAGES:
            line = f"  {stage:<20}"
            for when, _ in situations:
                found = results.get(f"first_stage_{when}_{stage}")
                line += f" {found[0] / 1e3:>22.2f}" if found else f" {'-':>22}"
            out.append(line)
        warm = results.get("nvvm_warm_up_ms")
        if warm:
            ms, extra = warm
            out.append(f"  libnvvm warmed up in the background when the GPU opened: {float(ms):.2f} ms "
                       f"(load {extra.get('load_ms', '?')}, compile {extra.get('compile_ms', '?')}), "
                       f"ended before the first call: {extra.get('finished_before_first_call', '?')}")
        opened = [(label, results.get(f"{label}open_ms"), results.get(f"{label}open_to_first_calls_ms"))
                  for label in ("cold_", "cold_serial_")]
        if all(o and t for _, o, t in opened):
            (_, on, on_total), (_, off, off_total) = opened
            out.append(f"  opening the GPU (fresh process, JIT cold): {on[0]:.1f} ms with the kernels compiled "
                       f"meanwhile, {off[0]:.1f} ms without; open to both first calls done: "
                       f"{on_total[0]:.1f} vs {off_total[0]:.1f} ms")
        compiled = sorted((name[len("cold_compiled_while_opening_"):], value)
                          for name, value in results.items()
                          if name.startswith("cold_compiled_while_opening_"))
        if compiled:
            out.append("  compiled while the GPU opened (cold child), ms: " + ", ".join(
                f"{kernel} {ms:.1f} (PTX {extra.get('ptx_ms', '?')}, library {extra.get('library_ms', '?')}, "
                f"loaded {extra.get('loaded', '?')})" for kernel, (ms, extra) in compiled))
        jit_warm = results.get("driver_jit_warm_up_ms")
        if jit_warm and extra_ran(jit_warm):
            out.append(f"  the driver's JIT warmed up on the opening thread while the context was created: "
                       f"{float(jit_warm[0]):.2f} ms (ends with the context; load result {jit_warm[1].get('load_result', '?')})")
        out.append("")
    return out


def extra_ran(result):
    """Whether a warm-up RESULT line says it ran (`ran=false` when it did not)."""
    return result[1].get("ran") != "false"


def macro_cost():
    """(extra seconds, where it was measured) from the committed macro_cost result: the
    file's last RESULT line (sessions append theirs below the earlier ones)."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), MACRO_COST_FILE)
    latest = None
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[0] == "RESULT" and parts[1] == "macro_cost_extra_s":
                    latest = float(parts[2]), " ".join(parts[3:]) or "development machine"
    except OSError:
        return None
    return latest


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    results = parse(argv[1])
    lines = []
    if len(argv) > 2:
        with open(argv[2]) as f:
            lines += [l.rstrip("\n") for l in f]
        lines.append("")
    lines.append("Kernel: vecadd, 2^24 f32 elements, 256-thread blocks, device arrays,")
    lines.append("median of 300 launches, each between CUDA events (12 bytes/element)")
    kernel_bases = [(KERNEL_BASE, "x nvcc"), ("kernel_nvcc_ptx_cudarc", "x nvcc-in-rs")]
    lines += table(results, KERNEL_ROWS, kernel_bases, "median us", ("gbps", "GB/s"))
    lines.append("")
    lines.append("Launch: same kernel on 1024-element device arrays, 20000 back-to-back")
    lines.append("launches, host wall time per launch, median of 11 interleaved repetitions")
    launch_bases = [(LAUNCH_BASE, "x cudarc"), ("launch_cuda_runtime", "x runtime")]
    lines += table(results, LAUNCH_ROWS, launch_bases, "us/launch")
    lines.append("")
    lines.append("First call (host time, includes compilation)")
    for name, label in FIRST_ROWS:
        if name in results:
            lines.append(f"  {label:<52} {results[name][0] / 1e3:>10.1f} ms")
        else:
            lines.append(f"  {label:<52} {'(missing)':>10}")
    lines.append("")
    lines.append("New generic instantiation (host time of its first launch: front end, libnvvm,")
    lines.append("module load, launch; a child process with CUDAJIT_AOT=0)")
    for name, label in INSTANCE_ROWS:
        if name in results:
            lines.append(f"  {label:<52} {results[name][0] / 1e3:>10.1f} ms")
        else:
            lines.append(f"  {label:<52} {'(missing)':>10}")
    if "generic_launch_extra" in results:
        us, extra = results["generic_launch_extra"]
        lines.append(f"  {'later launch: extra host time over vecadd (median)':<52} {us:>10.3f} us"
                     f"   (min {extra.get('min_us', '-')} us)")
    else:
        lines.append(f"  {'later launch: extra host time over vecadd':<52} {'(missing)':>10}")
    lines.append("")
    lines.append("Graph: 100 launches of the same kernel captured once, replayed 200 times back")
    lines.append("to back, host wall time per kernel node, median of 11 interleaved repetitions")
    lines += table(results, GRAPH_ROWS, [("graph_node_cudarc", "x cudarc")], "us/node")
    lines.append("")
    lines += paired_table(results)
    lines += launch_chart_table(results)
    lines += same_stream_ratios(results)
    lines += profile_tables(results)
    lines.append("Criteria")
    failed = False
    for name, base, limit, what in CRITERIA:
        if name in results and base in results:
            ratio = results[name][0] / results[base][0]
            ok = ratio <= limit
            failed |= not ok
            verdict = "PASS" if ok else "FAIL"
            lines.append(f"  {verdict}  {what}: {ratio:.3f} (limit {limit:.2f})")
        else:
            failed = True
            lines.append(f"  MISSING  {what}: need {name} and {base}")
    for name, limit_us, what in INSTANCE_CRITERIA:
        if name in results:
            us = results[name][0]
            ok = us < limit_us
            failed |= not ok
            shown = f"{us / 1e3:.1f} ms" if limit_us >= 1e3 else f"{us:.3f} us"
            lines.append(f"  {'PASS' if ok else 'FAIL'}  {what}: {shown}")
        else:
            failed = True
            lines.append(f"  MISSING  {what}: need {name}")
    for name, base, limit, what in LATENCY_CRITERIA:
        name, against = bar_pair(results, name)
        what += against
        if FIRST_CALL_BARS.get(name) in results:
            name = FIRST_CALL_BARS[name]
        if name not in results or (base and base not in results):
            failed = True
            lines.append(f"  MISSING  {what}: need {name}" + (f" and {base}" if base else ""))
            continue
        us = results[name][0]
        value = us / results[base][0] if base else us
        ok = value <= limit
        failed |= not ok
        if name.startswith("pair_"):
            extra = results[name][1]
            shown = (f"{value:.3f}x ({extra.get('ours_us', '?')} us against {extra.get('bare_us', '?')} us; "
                     f"limit {limit:.2f}x)")
        elif base:
            shown = f"{value:.3f}x ({us:.3f} us; limit {limit:.2f}x)"
        elif limit >= 1e3:
            shown = f"{us / 1e3:.1f} ms (limit {limit / 1e3:.0f} ms)"
        else:
            shown = f"{us:.3f} us (limit {limit:.1f} us)"
        lines.append(f"  {'PASS' if ok else 'FAIL'}  {what}: {shown}")
    macro = macro_cost()
    if macro is None:
        lines.append(f"  MISSING  #[kernel] build cost within {MACRO_COST_LIMIT_S} s: run bench/macro_cost.sh")
    else:
        extra_s, where = macro
        ok = extra_s <= MACRO_COST_LIMIT_S
        failed |= not ok
        lines.append(f"  {'PASS' if ok else 'FAIL'}  50 #[kernel] + 50 #[device] rebuild cost within "
                     f"{MACRO_COST_LIMIT_S} s (development machine, bench/macro_cost.sh): "
                     f"+{extra_s:.2f} s ({where})")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
