# CuPy references for issue 12 on the same GPU, same run, same inputs as bench/hl.rs
# (2^28 elements), median of 20 event-timed calls after a warm-up. Each line times what
# the bench/hl.rs line of the same name times (see its header):
#   sum.device  cupy.sum(x)              -> a 0-d device array, nothing read back
#   sum.host    float(cupy.sum(x))       -> the same plus the read back
#   scan        cupy.cumsum(u, out=y)    -> into an existing array
#   scan.alloc  cupy.cumsum(u)           -> a new array (from CuPy's memory pool)
# CUPY_ACCELERATORS=cub is set (unless given) so that cumsum and sum go through CUB.
import os

os.environ.setdefault("CUPY_ACCELERATORS", "cub")
import cupy as cp  # noqa: E402

N = 1 << 28


def med(f, reps=20):
    f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        f()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1000)
    ts.sort()
    return ts[len(ts) // 2]


print(f"cupy {cp.__version__}, CUPY_ACCELERATORS={os.environ['CUPY_ACCELERATORS']}")
x = (cp.arange(N, dtype=cp.int64) * 7919 % 17 - 8).astype(cp.float32)
u = (cp.arange(N, dtype=cp.int64) % 5).astype(cp.uint32)
y = cp.empty_like(x)
scanned = cp.empty_like(u)
us = med(lambda: y.__setitem__(Ellipsis, x))
print(f"RESULT copy.cupy {us:.3f} bytes={8 * N},GBps={8 * N / us / 1e3:.0f}")
us = med(lambda: cp.sum(x))
print(f"RESULT sum.device.cupy {us:.3f} bytes={4 * N},GBps={4 * N / us / 1e3:.0f}")
us = med(lambda: float(cp.sum(x)))
print(f"RESULT sum.host.cupy {us:.3f} bytes={4 * N},GBps={4 * N / us / 1e3:.0f}")
us = med(lambda: cp.cumsum(u, dtype=cp.uint32, out=scanned))
print(f"RESULT scan.cupy {us:.3f} bytes={8 * N},GBps={8 * N / us / 1e3:.0f}")
us = med(lambda: cp.cumsum(u, dtype=cp.uint32))
print(f"RESULT scan.alloc.cupy {us:.3f} bytes={8 * N},GBps={8 * N / us / 1e3:.0f}")
assert int(scanned[-1]) == int(u.astype(cp.uint64).sum()) % (1 << 32)
# Small integers: CUB's float sum is exact or within a few units of the f64 sum.
assert abs(float(cp.sum(x)) - float(x.astype(cp.float64).sum())) <= 64
