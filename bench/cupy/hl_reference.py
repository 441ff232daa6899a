# References for issue 12 on the same GPU, same run: cupy.sum (2^28 f32) and cupy.cumsum
# (2^28 uint32, CUB's DeviceScan), median of 20 event-timed calls each.
import cupy as cp
N = 1 << 28
def med(f, reps=20):
    f(); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); f(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1000)
    ts.sort(); return ts[len(ts) // 2]
x = (cp.arange(N, dtype=cp.int64) * 7919 % 17 - 8).astype(cp.float32)
u = (cp.arange(N, dtype=cp.int64) % 5).astype(cp.uint32)
y = cp.empty_like(x)
us = med(lambda: y.__setitem__(Ellipsis, x)); print(f"RESULT copy.cupy {us:.3} GBps={8*N/us/1e3:.0f}")
us = med(lambda: cp.sum(x)); print(f"RESULT sum.cupy {us:.3} GBps={4*N/us/1e3:.0f}")
us = med(lambda: cp.cumsum(u, dtype=cp.uint32)); print(f"RESULT scan.cupy {us:.3} GBps={8*N/us/1e3:.0f}")
assert int(cp.cumsum(u, dtype=cp.uint32)[-1]) == int(u.astype(cp.uint64).sum()) % (1 << 32)
