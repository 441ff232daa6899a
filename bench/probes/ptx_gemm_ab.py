#!/usr/bin/env python3
"""Times several builds of one tensor-core GEMM side by side in one process, launch by
launch in turn, on the same buffers: PTX files (cudajit's kernels as `tc --inspect`
writes them, or hand-edited copies of them) and the nvcc twin's cubin. A probe for
questions such as "which of these codegen variants does ptxas schedule well" that would
otherwise each need a build of the whole bench and a GPU run (issue 23's checked tf32
GEMM, 1.08x its twin while the unchecked one runs at 0.95x with the same loop PTX).

    python3 bench/probes/ptx_gemm_ab.py KIND N LABEL=FILE[:ENTRY] ...

KIND is bf16, tf32 or int8 (the bench's tc_gemm configurations); a FILE ending in
.cubin is the twin (ENTRY its mangled name), any other is cudajit PTX (ENTRY defaults
to gemm_KIND) whose parameters are (a, a.len, b, b.len, c, c.len, m, n, k, panic
record). Prints one row per label: median and minimum microseconds of `reps` launches
per round over `rounds` rounds, and whether C equals the first label's C bit for bit
(same tiles in the same k order: it must). Needs CuPy (on the GPU machine's image).
"""
import sys

import cupy as cp
import numpy as np

# (element dtype, output dtype, threads, dynamic shared bytes): bench/tc.rs's GEMM_*.
KINDS = {
    "bf16": (np.uint16, np.uint16, 128, 3 * 256 * 64),
    "tf32": (np.float32, np.float32, 128, 3 * 256 * 128),
    "int8": (np.int8, np.int32, 128, 4 * 256 * 64),
}


def inputs(dtype, count, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.uint16:  # bf16 bits of values in [-1, 1)
        values = rng.uniform(-1, 1, count).astype(np.float32)
        return cp.asarray((values.view(np.uint32) >> 16).astype(np.uint16))
    if dtype == np.int8:
        return cp.asarray(rng.integers(-8, 8, count, dtype=np.int8))
    return cp.asarray(rng.uniform(-1, 1, count).astype(np.float32))


def load(label, spec, kind, shared):
    path, _, entry = spec.partition(":")
    module = cp.RawModule(path=path)
    fn = module.get_function(entry or f"gemm_{kind}")
    fn.max_dynamic_shared_size_bytes = shared
    return label, path.endswith(".cubin"), module, fn


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    reps, rounds = 10, 3
    elem, out, threads, shared = KINDS[kind]
    a, b = inputs(elem, n * n, 11), inputs(elem, n * n, 22)
    c = cp.zeros(n * n, dtype=out)
    record = cp.zeros(64, dtype=np.uint8)
    builds = [load(*arg.split("=", 1), kind, shared) for arg in sys.argv[3:]]
    grid = ((n // 128) * (n // 128),)

    def launch(build):
        _, twin, _, fn = build
        if twin:
            args = (a, b, c, np.int32(n), np.int32(n), np.int32(n))
        else:
            size = np.uint64(n * n)
            args = (a, size, b, size, c, size, np.uint32(n), np.uint32(n), np.uint32(n), record)
        fn(grid, (threads,), args, shared_mem=shared)

    reference = None
    same = {}
    for build in builds:
        c.fill(0x7F if out != np.float32 else np.nan)
        launch(build)
        cp.cuda.Device().synchronize()
        got = c.copy()
        if reference is None:
            reference = got
        same[build[0]] = bool(cp.array_equal(got.view(np.uint8), reference.view(np.uint8)))
    if int(record.sum()) != 0:
        print("a kernel reported a panic in its record")
    times = {b[0]: [] for b in builds}
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(rounds):
        for _ in range(reps):
            for build in builds:
                start.record()
                launch(build)
                stop.record()
                stop.synchronize()
                times[build[0]].append(cp.cuda.get_elapsed_time(start, stop) * 1000)
    flops = 2.0 * n**3
    first = np.median(times[builds[0][0]])
    print(f"{'build':<24} {'median_us':>10} {'min_us':>10} {'TFLOP/s':>8} {'/first':>7} same_C")
    for label, _, _, _ in builds:
        t = np.array(times[label])
        med = float(np.median(t))
        print(f"{label:<24} {med:10.1f} {t.min():10.1f} {flops / med / 1e6:8.1f} {med / first:7.3f} {same[label]}")


if __name__ == "__main__":
    main()
