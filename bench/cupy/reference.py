"""The library references of the SIMT benchmark suite (issue 6), on the same inputs as
bench/cuda/simt.cu, bench/simt.rs and bench/numba/simt.py (splitmix64 of seed and index,
made here on the device):

* `sum.cupy`: `cupy.sum` of the 2^28 f32 of the sum kernels (CUB's device reduction);
* `sgemm.cublas`, `fast_matmul.cublas`: `cupy.matmul` (cuBLAS SGEMM) with TF32 off
  (`CUPY_TF32=0`, and checked: TF32's 10-bit mantissa would miss the error bound);
* `sgemm.torch`: `torch.matmul` with `allow_tf32 = False`, a second cuBLAS reading;
* `copy.cupy`: a device-to-device `cudaMemcpyAsync` of 256 MiB.

Prints `RESULT <kernel>.<library> <median_us> <key=value,...>` lines for
bench/report_simt.py. Runs with the GPU machine's own python3 (CuPy, PyTorch, their
numpy), not the carried numpy that Numba needs.
"""

import os
import statistics
import sys

os.environ["CUPY_TF32"] = "0"  # before CuPy reads it

try:
    import cupy as cp
except Exception as e:
    print(f"skipped: cupy unavailable: {e!r}")
    sys.exit(0)

SUM_N = 1 << 28
MAT_N = 2048
GEMM_N = 4096
COPY_N = 1 << 26
WARMUP = 5
M64 = (1 << 64) - 1


def mix(seed, n):
    z = cp.arange(n, dtype=cp.uint64)
    z += cp.uint64((seed * 0x9E3779B97F4A7C15) & M64)
    z ^= z >> cp.uint64(30)
    z *= cp.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> cp.uint64(27)
    z *= cp.uint64(0x94D049BB133111EB)
    z ^= z >> cp.uint64(31)
    return z


def unit_floats(n, seed):
    return (mix(seed, n) >> cp.uint64(40)).astype(cp.float32) * cp.float32(1.0 / 16777216.0)


def signed_floats(n, seed):
    v = (mix(seed, n) >> cp.uint64(40)).astype(cp.float32) * cp.float32(1.0 / 8388608.0)
    return v - cp.float32(1.0)


def time_us(reps, body, stream):
    for _ in range(WARMUP):
        body()
    stream.synchronize()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    for start, stop in events:
        start.record(stream)
        body()
        stop.record(stream)
    stream.synchronize()
    return statistics.median(cp.cuda.get_elapsed_time(s, e) * 1e3 for s, e in events)


def report(name, us, nbytes, flops, reps, extra=""):
    print(f"RESULT {name} {us:.3f} bytes={nbytes:.0f},flops={flops:.0f},reps={reps}{extra}", flush=True)


def max_matmul_error(a, b, c):
    """Largest |C - A·B| over 512 sampled entries, against a float64 product."""
    n = a.shape[0]
    idx = mix(99, 1024) % cp.uint64(n)
    rows, cols = idx[0::2].astype(cp.int64), idx[1::2].astype(cp.int64)
    want = (a[rows].astype(cp.float64) * b[:, cols].T.astype(cp.float64)).sum(axis=1)
    return float(cp.abs(c[rows, cols].astype(cp.float64) - want).max())


def main():
    dev = cp.cuda.Device(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    print(f"simt references: cupy {cp.__version__}, {props['name'].decode()}")
    stream = cp.cuda.Stream(non_blocking=False)
    status = 0
    with dev, stream:
        # copy
        a = unit_floats(COPY_N, 10)
        b = cp.empty_like(a)
        nbytes = a.nbytes
        us = time_us(
            50,
            lambda: cp.cuda.runtime.memcpyAsync(
                b.data.ptr, a.data.ptr, nbytes, cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr
            ),
            stream,
        )
        if not bool((a == b).all()):
            print("copy.cupy: wrong result", file=sys.stderr)
            status = 1
        report("copy.cupy", us, 2 * nbytes, 0, 50)
        del a, b

        # sum
        x = unit_floats(SUM_N, 1)
        want = float(cp.sum(x, dtype=cp.float64))
        got = float(cp.sum(x))
        if not abs(got - want) <= 1e-4 * want:
            print(f"sum.cupy: {got} != {want}", file=sys.stderr)
            status = 1
        us = time_us(50, lambda: cp.sum(x), stream)
        report("sum.cupy", us, 4 * SUM_N, SUM_N, 50)
        del x

        # cuBLAS SGEMM, TF32 off
        for name, n, seeds, reps in (("fast_matmul", MAT_N, (2, 3), 20), ("sgemm", GEMM_N, (4, 5), 20)):
            a = signed_floats(n * n, seeds[0]).reshape(n, n)
            b = signed_floats(n * n, seeds[1]).reshape(n, n)
            c = cp.matmul(a, b)
            err = max_matmul_error(a, b, c)
            # fp32 accumulation errs ~1e-5 here; TF32 inputs (10-bit mantissa) ~1e-2.
            if not err <= 1e-3:
                print(f"{name}.cublas: error {err:.2e}: TF32 on, or wrong", file=sys.stderr)
                status = 1
            us = time_us(reps, lambda: cp.matmul(a, b, out=c), stream)
            report(f"{name}.cublas", us, 3 * 4 * n * n, 2 * n**3, reps, f",max_err={err:.2e}")
            if name == "sgemm":
                status |= torch_sgemm(a, b, n, reps)
            del a, b, c
    return status


def torch_sgemm(a_cp, b_cp, n, reps):
    """The same SGEMM through PyTorch (TF32 off) on CuPy's arrays, shared via DLPack."""
    try:
        import torch
    except Exception as e:
        print(f"sgemm.torch skipped: {e!r}")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cp.cuda.get_current_stream().synchronize()
    a = torch.from_dlpack(a_cp)
    b = torch.from_dlpack(b_cp)
    c = torch.empty((n, n), device=a.device, dtype=torch.float32)
    for _ in range(WARMUP):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, stop in events:
        start.record()
        torch.matmul(a, b, out=c)
        stop.record()
    torch.cuda.synchronize()
    us = statistics.median(s.elapsed_time(e) * 1e3 for s, e in events)
    err = max_matmul_error(a_cp, b_cp, cp.from_dlpack(c))
    report("sgemm.torch", us, 3 * 4 * n * n, 2 * n**3, reps, f",max_err={err:.2e}")
    if not err <= 1e-3:
        print(f"sgemm.torch: error {err:.2e}: TF32 on, or wrong", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
