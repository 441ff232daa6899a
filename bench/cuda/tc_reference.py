#!/usr/bin/env python3
"""The library references of the tensor-core benchmark (issue 23), timed in the same
run as bench/cuda/tc.cu and bench/tc.rs: cuBLAS through torch.matmul (bf16, tf32 with
allow_tf32, f64), torch._int_mm (int8 -> int32), and scaled_dot_product_attention with
the FLASH_ATTENTION and CUDNN_ATTENTION backends. Same shapes and layout (C = A·Bᵀ with
both operands K-contiguous; attention [batch, heads, seq, D] with batch·heads = 128).

Prints `RESULT <kernel>.<library> <median_us> flops=<n>,reps=<n>` lines that
bench/report_tc.py reads. The GEMMs' cuBLAS here runs on torch's own buffers, whose
placement moves an 8192³ GEMM by up to 12–15%: the table's `%lib` and bars use cuBLAS
timed inside bench/tc.rs on cudajit's buffers (`cublas_here`, bench/tc_cublas.rs) and
keep this one as the `lib_torch_us` column; attention (no GEMM) is measured here only. Each result is checked against an f64 computation on a
sample first (a wrong library result would make the comparison meaningless).
"""

import statistics
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

HEADS_BATCH, HEADS, SEQ = 4, 32, 4096  # batch × heads = 128, as in tc.cu


def median_us(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        times.append((start, stop))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in times)


def report(name, lib, us, flops, reps):
    print(f"RESULT {name}.{lib} {us:.3f} flops={flops:.0f},reps={reps}")
    print(f"  {name:22s} {lib:8s} {us:10.1f} us {flops / us * 1e-6:8.1f} TFLOP/s", flush=True)


def sampled_error(got, a, b):
    rows = torch.randint(0, a.shape[0], (32,), device=a.device)
    cols = torch.randint(0, b.shape[0], (32,), device=a.device)
    ref = a[rows].double() @ b[cols].double().t()
    out = got[rows][:, cols].double()
    return ((out - ref).norm() / ref.norm()).item()


def gemm(name, n, dtype, lib, tolerance, reps):
    if dtype == torch.int8:
        a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
        b = torch.randint(-128, 128, (n, n), dtype=torch.int8, device="cuda")
        fn = lambda: torch._int_mm(a, b.t())  # noqa: E731
    else:
        a = torch.rand(n, n, dtype=dtype, device="cuda") * 2 - 1
        b = torch.rand(n, n, dtype=dtype, device="cuda") * 2 - 1
        fn = lambda: torch.matmul(a, b.t())  # noqa: E731
    error = sampled_error(fn(), a, b)
    if not error <= tolerance:
        print(f"WRONG {name}.{lib}: error {error:.3g}", flush=True)
        return False
    report(name, lib, median_us(fn, reps), 2.0 * n**3, reps)
    return True


def attention(name, d, backend, lib, reps):
    shape = (HEADS_BATCH, HEADS, SEQ, d)
    q, k, v = (torch.rand(shape, dtype=torch.bfloat16, device="cuda") * 2 - 1 for _ in range(3))

    def fn():
        with sdpa_kernel(backend):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v)

    try:
        out = fn()
    except RuntimeError as e:  # a backend that refuses the shape: say so, keep going
        print(f"WRONG {name}.{lib}: {str(e).splitlines()[0]}", flush=True)
        return False
    qs, ks, vs = q[0, :2, :64].double(), k[0, :2].double(), v[0, :2].double()
    ref = torch.softmax(qs @ ks.transpose(-1, -2) / d**0.5, dim=-1) @ vs
    error = ((out[0, :2, :64].double() - ref).norm() / ref.norm()).item()
    if not error <= 2e-2:
        print(f"WRONG {name}.{lib}: error {error:.3g}", flush=True)
        return False
    report(name, lib, median_us(fn, reps), 4.0 * HEADS_BATCH * HEADS * SEQ * SEQ * d, reps)
    return True


def main():
    only = set(sys.argv[1:])
    want = lambda name: not only or name in only  # noqa: E731
    torch.manual_seed(1)
    torch.backends.cuda.matmul.allow_tf32 = True
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    ok = True
    if want("gemm_bf16_4096"):
        ok &= gemm("gemm_bf16_4096", 4096, torch.bfloat16, "cublas", 1e-2, 30)
    if want("gemm_bf16_8192"):
        ok &= gemm("gemm_bf16_8192", 8192, torch.bfloat16, "cublas", 1e-2, 20)
    if want("gemm_tf32_8192"):
        ok &= gemm("gemm_tf32_8192", 8192, torch.float32, "cublas", 5e-3, 10)
    if want("gemm_int8_8192"):
        ok &= gemm("gemm_int8_8192", 8192, torch.int8, "cublas", 0.0, 20)
    if want("dgemm_f64_4096"):
        ok &= gemm("dgemm_f64_4096", 4096, torch.float64, "cublas", 1e-12, 10)
    for d in (64, 128):
        if want(f"attention_d{d}"):
            ok &= attention(f"attention_d{d}", d, SDPBackend.FLASH_ATTENTION, "flash", 20)
            ok &= attention(f"attention_d{d}", d, SDPBackend.CUDNN_ATTENTION, "cudnn", 20)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
