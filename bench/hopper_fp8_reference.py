#!/usr/bin/env python3
"""cuBLASLt's fp8 GEMM through torch._scaled_mm, timed in the same run as the fp8 Hopper
GEMM of bench/hopper_fp8.rs and bench/cuda/hopper_fp8.cu (issue 24): C (bf16) = A·Bᵀ with
A and B e4m3 (uniform in [-1, 1) rounded to e4m3), both K-contiguous, scales 1.0,
n×n×n, checked on a 32×32 sample against an f64 reference from the decoded inputs first.

    hopper_fp8_reference.py [n ...]   (default: 4096 8192)

Prints `RESULT gemm_e4m3_<n>.cublaslt <median_us> flops=<n>,reps=<n>,error=<e>`.
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
    one = torch.ones((), dtype=torch.float32, device="cuda")
    for n in sizes:
        a = (torch.rand(n, n, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
        b = (torch.rand(n, n, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
        # _scaled_mm wants B column-major: b (N×K, row-major) transposed is exactly that.
        fn = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
        got = fn()
        rows = torch.randint(0, n, (32,), device="cuda")
        cols = torch.randint(0, n, (32,), device="cuda")
        ref = a[rows].double() @ b[cols].double().t()
        error = ((got[rows][:, cols].double() - ref).norm() / ref.norm()).item()
        name = f"gemm_e4m3_{n}"
        if not error <= 1e-2:
            print(f"WRONG {name}.cublaslt: error {error:.3g}")
            failed = True
            continue
        reps = 20 if n >= 8192 else 50
        us = median_us(fn, reps)
        flops = 2.0 * n**3
        print(f"RESULT {name}.cublaslt {us:.3f} flops={flops:.0f},reps={reps},error={error:.3g}")
        print(f"  {name:16s} {'cublaslt':16s} {us:10.1f} us {flops / us * 1e-6:8.1f} TFLOP/s", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
