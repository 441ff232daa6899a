"""Numba's side of bench/vecadd_launch.rs: the same vecadd, timed the same way.

Prints `RESULT <name> <median_us> <key=value,...>` lines that bench/report.py reads.
Run by bench/run.sh on the GPU machine; numba-cuda there needs numpy <= 2.3, which
run.sh puts first on PYTHONPATH from a carried wheel.
"""

import statistics
import sys
import time

N = 1 << 24  # elements
BLOCK = 256  # threads per block
WARMUP = 20
TIMED = 300  # >= 200 launches, each between its own events
TINY_N = 1024  # launch-overhead arrays
LAUNCHES = 20000  # back-to-back launches per repetition
REPS = 11  # repetitions; the median is reported


def main():
    try:
        import numpy as np
        from numba import cuda
    except Exception as e:  # no numba here: say so instead of failing the whole run
        print(f"skipped: numba unavailable: {e!r}")
        return 0
    if not cuda.is_available():
        print("skipped: numba finds no CUDA device")
        return 0

    import numba

    dev = cuda.get_current_device()
    print(f"numba bench: numba {numba.__version__}, numpy {np.__version__}, {dev.name}")

    # Compiled lazily at the first call, as users write it.
    @cuda.jit
    def vecadd(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    rng = np.random.default_rng(7)
    ha = rng.uniform(-1, 1, N).astype(np.float32)
    hb = rng.uniform(-1, 1, N).astype(np.float32)
    a = cuda.to_device(ha)
    b = cuda.to_device(hb)
    c = cuda.to_device(np.full(N, np.nan, dtype=np.float32))  # poison
    blocks = (N + BLOCK - 1) // BLOCK
    stream = cuda.stream()

    # First call: type dispatch + compile + module load + launch, host time.
    t0 = time.perf_counter()
    vecadd[blocks, BLOCK, stream](a, b, c)
    stream.synchronize()
    first_us = (time.perf_counter() - t0) * 1e6
    print(f"RESULT first_call_numba {first_us:.3f} includes=compile+load+launch")

    got = c.copy_to_host()
    want = ha + hb
    if not np.array_equal(got, want):
        bad = int(np.flatnonzero(got != want)[0])
        print(f"numba vecadd wrong at {bad}: {got[bad]} != {want[bad]}", file=sys.stderr)
        return 1

    for _ in range(WARMUP):
        vecadd[blocks, BLOCK, stream](a, b, c)
    stream.synchronize()
    events = [(cuda.event(timing=True), cuda.event(timing=True)) for _ in range(TIMED)]
    for start, stop in events:
        start.record(stream)
        vecadd[blocks, BLOCK, stream](a, b, c)
        stop.record(stream)
    stream.synchronize()
    us = [cuda.event_elapsed_time(s, e) * 1e3 for s, e in events]
    med = statistics.median(us)
    gbps = 12.0 * N / (med * 1e-6) / 1e9  # 2 reads + 1 write of 4 bytes
    print(
        f"RESULT kernel_numba {med:.3f} gbps={gbps:.1f},min_us={min(us):.3f},"
        f"n={N},block={BLOCK},reps={TIMED}"
    )

    # Launch overhead: back-to-back launches on small device arrays, host time.
    ta = cuda.to_device(ha[:TINY_N])
    tb = cuda.to_device(hb[:TINY_N])
    tc = cuda.device_array(TINY_N, dtype=np.float32)
    tiny_blocks = TINY_N // BLOCK
    # Configured per launch, as users write it (the Rust side builds its config per launch too).
    for _ in range(1000):
        vecadd[tiny_blocks, BLOCK, stream](ta, tb, tc)
    stream.synchronize()
    per = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            vecadd[tiny_blocks, BLOCK, stream](ta, tb, tc)
        stream.synchronize()
        per.append((time.perf_counter() - t0) * 1e6 / LAUNCHES)
    print(
        f"RESULT launch_numba {statistics.median(per):.3f} min_us={min(per):.3f},"
        f"launches={LAUNCHES},reps={REPS},n={TINY_N}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
