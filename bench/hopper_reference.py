#!/usr/bin/env python3
"""cuBLAS's bf16 GEMM through torch.matmul, timed in the same run as the Hopper GEMM of
bench/hopper_gemm.rs and bench/cuda/hopper_gemm.cu (issue 24): C = A·Bᵀ with both
operands K-contiguous, n×n×n, checked on a 32×32 sample against f64 first.

    hopper_reference.py [n ...]   (default: 4096 8192)

Prints `RESULT gemm_bf16_<n>.cublas <median_us> flops=<n>,reps=<n>,error=<e>`.
"""

import statistics
import sys

import torch


def median_us(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    events = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        events.append((start, stop))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in events)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [4096, 8192]
    failed = False
    for n in sizes:
        a = torch.rand(n, n, dtype=torch.bfloat16, device="cuda") * 2 - 1
        b = torch.rand(n, n, dtype=torch.bfloat16, device="cuda") * 2 - 1
        fn = lambda: torch.matmul(a, b.t())  # noqa: E731
        got = fn()
        rows = torch.randint(0, n, (32,), device="cuda")
        cols = torch.randint(0, n, (32,), device="cuda")
        ref = a[rows].double() @ b[cols].double().t()
        error = ((got[rows][:, cols].double() - ref).norm() / ref.norm()).item()
        name = f"gemm_bf16_{n}"
        if not error <= 1e-2:
            print(f"WRONG {name}.cublas: error {error:.3g}")
            failed = True
            continue
        reps = 20 if n >= 8192 else 50
        us = median_us(fn, reps)
        flops = 2.0 * n**3
        print(f"RESULT {name}.cublas {us:.3f} flops={flops:.0f},reps={reps},error={error:.3g}")
        print(f"  {name:16s} {'cublas':16s} {us:10.1f} us {flops / us * 1e-6:8.1f} TFLOP/s", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
