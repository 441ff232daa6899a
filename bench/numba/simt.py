"""Numba's side of the SIMT benchmark suite (issue 6): the same algorithms, launch
shapes, sizes and inputs as bench/cuda/simt.cu (nvcc) and bench/simt.rs (cudajit).

Prints `RESULT <kernel>.numba <median_us> <key=value,...>` lines that
bench/report_simt.py reads. Every kernel's output is checked against a NumPy reference
before it is timed (a wrong result exits 1); the first call of each kernel (Numba's JIT)
is reported as `first_call=<ms>`. Run by bench/run_simt.sh on the GPU machine, where
numba-cuda needs numpy <= 2.3 (run_simt.sh puts the carried wheel first on PYTHONPATH).

    python3 simt.py [kernel ...]     (no argument: all of them)
"""

import math
import os
import statistics
import sys
import time

try:
    import numpy as np
    from numba import cuda, float32, float64, int32, uint32
    from numba.cuda import libdevice
    from numba.cuda.random import (
        create_xoroshiro128p_states,
        xoroshiro128p_uniform_float32,
    )
except Exception as e:  # no numba here: say so instead of failing the whole run
    print(f"skipped: numba unavailable: {e!r}")
    sys.exit(0)

# ---- sizes and launch shapes: identical in bench/cuda/simt.cu and bench/simt.rs
SUM_N = 1 << 28
SUM_BLOCK, SUM_GRID = 256, 2048
MAT_N, TPB = 2048, 16
GEMM_N = 4096
BM, BN, BK, TM, TN, GEMM_THREADS = 128, 128, 8, 8, 8, 256
HIST_N = 1 << 26
HIST_BLOCK, HIST_GRID, BINS = 256, 1024, 256
TRANS_N, TILE, TILE_ROWS = 8192, 32, 8
STENCIL_N, ST_TILE, ST_ROWS = 8192, 32, 8  # 32×8 threads per 32×32 tile
ST_TILE_PAD = ST_TILE + 2  # shared.array shapes must be plain constants
TILE_PAD = TILE + 1
SCAN_N = 1 << 26
SCAN_BLOCK, SCAN_ITEMS, SCAN_SUMS_BLOCK = 256, 16, 1024
PI_BLOCK, PI_GRID, PI_ITERS, PI_SEED = 256, 1024, 1024, 1234
GS_N, GS_BLOCK, GS_BLOCKS_PER_SM = 1 << 26, 256, 2
COPY_N = 1 << 26
COPY_BLOCK = 256
NBODY_N, NBODY_BLOCK = 65536, 256  # the block is the 256-body tile
NBODY_DT, NBODY_SOFTENING2 = np.float32(0.01), np.float32(0.05)
FLOPS_PER_INTERACTION = 20  # the usual count (NVIDIA's nbody sample's)
BS_N, BS_BLOCK = 1 << 24, 128
BS_RATE, BS_VOLATILITY = 0.02, 0.30
# The CUDA SDK's Black-Scholes coefficients (Abramowitz & Stegun 26.2.17).
CND_K, CND_A1, CND_A2, CND_A3, CND_A4, CND_A5 = (
    0.2316419, 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429)
RSQRT_2PI = 0.3989422804014327
WARMUP = 5
FULL = 0xFFFFFFFF

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
# rsqrtf as nvcc's and cudajit's (libdevice's __nv_rsqrtf); the simulator has no
# libdevice, so there (smoke tests only) it is computed in Python.
rsqrtf = libdevice.rsqrtf if not SIMULATOR else (lambda x: float32(1.0 / math.sqrt(x)))
# SIMT_SMALL=1: tiny sizes, for a smoke test of this script on the CPU with Numba's
# simulator (NUMBA_ENABLE_CUDASIM=1 SIMT_SMALL=1 python3 simt.py); never for timing.
if os.environ.get("SIMT_SMALL"):
    SUM_N, SUM_GRID = 5000, 3
    MAT_N = 40
    GEMM_N = 128
    HIST_N, HIST_GRID = 3000, 2
    TRANS_N = STENCIL_N = 64
    SCAN_N = SCAN_BLOCK * SCAN_ITEMS * 3
    PI_GRID, PI_ITERS = 2, 64
    GS_N = 5000
    COPY_N = 1000
    NBODY_N = 300
    BS_N = 1000
    WARMUP = 1

# =====================================================================================
# Inputs: splitmix64 of (seed, index), the same numbers in all three programs
# =====================================================================================
M64 = (1 << 64) - 1


def mix(seed, n):
    z = np.arange(n, dtype=np.uint64)
    z += np.uint64((seed * 0x9E3779B97F4A7C15) & M64)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


def unit_floats(n, seed):  # k / 2^24 in [0, 1)
    return (mix(seed, n) >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 16777216.0)


def signed_floats(n, seed):  # [-1, 1)
    v = (mix(seed, n) >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 8388608.0)
    return v - np.float32(1.0)


def random_bytes(n, seed):
    return (mix(seed, n) >> np.uint64(56)).astype(np.uint8)


def small_u32(n, seed):  # 0..15
    return (mix(seed, n) >> np.uint64(60)).astype(np.uint32)


# =====================================================================================
# Kernels
# =====================================================================================


# 0. The plainest memory-bound kernel, one element per thread: a control for the others.
@cuda.jit
def copy_kernel(inp, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = inp[i]


# 1. Sum: grid-stride accumulation into four sums, a shared tree, one atomic per block.
@cuda.jit
def sum_shared(x, out):
    sm = cuda.shared.array(SUM_BLOCK, float32)
    tid = cuda.threadIdx.x
    n = x.size
    stride = cuda.gridDim.x * cuda.blockDim.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    a0 = float32(0)
    a1 = float32(0)
    a2 = float32(0)
    a3 = float32(0)
    while i + 3 * stride < n:
        a0 += x[i]
        a1 += x[i + stride]
        a2 += x[i + 2 * stride]
        a3 += x[i + 3 * stride]
        i += 4 * stride
    while i < n:
        a0 += x[i]
        i += stride
    sm[tid] = (a0 + a1) + (a2 + a3)
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        cuda.atomic.add(out, 0, sm[0])


# 2. The same accumulation; warp shuffles, one shared slot per warp, one atomic per block.
@cuda.jit
def sum_warp(x, out):
    warp_sums = cuda.shared.array(32, float32)
    tid = cuda.threadIdx.x
    n = x.size
    stride = cuda.gridDim.x * cuda.blockDim.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    a0 = float32(0)
    a1 = float32(0)
    a2 = float32(0)
    a3 = float32(0)
    while i + 3 * stride < n:
        a0 += x[i]
        a1 += x[i + stride]
        a2 += x[i + 2 * stride]
        a3 += x[i + 3 * stride]
        i += 4 * stride
    while i < n:
        a0 += x[i]
        i += stride
    v = (a0 + a1) + (a2 + a3)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL, v, off)
        off >>= 1
    lane = tid % 32
    warp = tid // 32
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < cuda.blockDim.x // 32 else float32(0)
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(FULL, v, off)
            off >>= 1
        if lane == 0:
            cuda.atomic.add(out, 0, v)


# 3. Numba's documented shared-memory matrix multiply, as the documentation has it.
@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.0)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


# 4. Register-tiled SGEMM (see bench/cuda/simt.cu for the layout).
@cuda.jit
def sgemm(A, B, C):
    As = cuda.shared.array((BK, BM), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    n = A.shape[0]
    tid = cuda.threadIdx.x
    warp = tid // 32
    lane = tid % 32
    trow = (warp // 2) * 4 + lane // 8
    tcol = (warp % 2) * 8 + lane % 8
    row0 = cuda.blockIdx.y * BM
    col0 = cuda.blockIdx.x * BN
    a_row = tid // 2
    a_col = (tid % 2) * 4
    b_row = tid // 32
    b_col = (tid % 32) * 4
    acc = cuda.local.array((TM, TN), float32)
    for m in range(TM):
        for j in range(TN):
            acc[m, j] = 0
    ra = cuda.local.array(TM, float32)
    rb = cuda.local.array(TN, float32)
    # The next k tile's elements, loaded into registers while this tile is multiplied.
    pa = cuda.local.array(4, float32)
    pb = cuda.local.array(4, float32)
    for j in range(4):
        pa[j] = A[row0 + a_row, a_col + j]
        pb[j] = B[b_row, col0 + b_col + j]
    for k0 in range(0, n, BK):
        for j in range(4):
            As[a_col + j, a_row] = pa[j]
            Bs[b_row, b_col + j] = pb[j]
        cuda.syncthreads()
        if k0 + BK < n:
            for j in range(4):
                pa[j] = A[row0 + a_row, k0 + BK + a_col + j]
                pb[j] = B[k0 + BK + b_row, col0 + b_col + j]
        for k in range(BK):
            for m in range(TM):
                ra[m] = As[k, (m // 4) * 64 + trow * 4 + m % 4]
            for j in range(TN):
                rb[j] = Bs[k, (j // 4) * 64 + tcol * 4 + j % 4]
            for m in range(TM):
                for j in range(TN):
                    acc[m, j] = cuda.fma(ra[m], rb[j], acc[m, j])
        cuda.syncthreads()
    for m in range(TM):
        r = row0 + (m // 4) * 64 + trow * 4 + m % 4
        for j in range(TN):
            C[r, col0 + (j // 4) * 64 + tcol * 4 + j % 4] = acc[m, j]


# 5. Histogram: shared bins, then one global atomic per non-empty bin.
@cuda.jit
def histogram(x, hist):
    sh = cuda.shared.array(BINS, uint32)
    b = cuda.threadIdx.x
    while b < BINS:
        sh[b] = 0
        b += cuda.blockDim.x
    cuda.syncthreads()
    stride = cuda.gridDim.x * cuda.blockDim.x
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    while i < x.size:
        cuda.atomic.add(sh, x[i], uint32(1))
        i += stride
    cuda.syncthreads()
    b = cuda.threadIdx.x
    while b < BINS:
        c = sh[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += cuda.blockDim.x


# 6. Transpose through a padded 32×33 shared tile; 32×8 threads, 4 rows each.
@cuda.jit
def transpose(inp, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, TILE_ROWS):
        tile[ty + j, tx] = inp[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, TILE_ROWS):
        out[y + j, x] = tile[tx, ty + j]


# 7. 5-point stencil, zero outside the grid: 32×8 threads per 32×32 tile (4 rows each)
# from a 34×34 shared tile; whole warps load the halo (see bench/cuda/simt.cu).
@cuda.jit
def stencil5(inp, out):
    t = cuda.shared.array((ST_TILE_PAD, ST_TILE_PAD), float32)
    ny, nx = inp.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x0 = cuda.blockIdx.x * ST_TILE
    y0 = cuda.blockIdx.y * ST_TILE
    x = x0 + tx
    for r in range(0, ST_TILE, ST_ROWS):
        t[ty + r + 1, tx + 1] = inp[y0 + ty + r, x]
    if ty == 0:
        t[0, tx + 1] = inp[y0 - 1, x] if y0 > 0 else float32(0)
    if ty == 1:
        t[ST_TILE + 1, tx + 1] = inp[y0 + ST_TILE, x] if y0 + ST_TILE < ny else float32(0)
    if ty == 2:
        t[tx + 1, 0] = inp[y0 + tx, x0 - 1] if x0 > 0 else float32(0)
    if ty == 3:
        t[tx + 1, ST_TILE + 1] = inp[y0 + tx, x0 + ST_TILE] if x0 + ST_TILE < nx else float32(0)
    cuda.syncthreads()
    for r in range(0, ST_TILE, ST_ROWS):
        ly = ty + r + 1
        around = (t[ly - 1, tx + 1] + t[ly + 1, tx + 1]) + (t[ly, tx] + t[ly, tx + 2])
        out[y0 + ty + r, x] = float32(0.5) * t[ly, tx + 1] + float32(0.125) * around


# 8. Scans: the block-wide inclusive scan (warp shuffles up, warp totals through shared
# memory); returns (inclusive prefix, block total). Numba widens 32-bit integer sums to
# 64 bits (and a 64-bit shuffle is two), so the values are held as int32 explicitly.
@cuda.jit(device=True)
def block_scan(value, warp_sums):
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    nwarps = cuda.blockDim.x // 32
    v = int32(value)
    d = 1
    while d < 32:
        u = cuda.shfl_up_sync(FULL, v, d)
        if lane >= d:
            v = int32(v + u)
        d <<= 1
    if lane == 31:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = warp_sums[lane] if lane < nwarps else int32(0)
        d = 1
        while d < 32:
            u = cuda.shfl_up_sync(FULL, w, d)
            if lane >= d:
                w = int32(w + u)
            d <<= 1
        warp_sums[lane] = w
    cuda.syncthreads()
    prefix = warp_sums[warp - 1] if warp > 0 else int32(0)
    total = warp_sums[nwarps - 1]
    cuda.syncthreads()
    return int32(v + prefix), total


@cuda.jit
def scan_block(x, out):
    warp_sums = cuda.shared.array(32, int32)
    i = cuda.grid(1)
    s, _ = block_scan(x[i], warp_sums)
    out[i] = s


@cuda.jit
def scan_reduce(x, block_sums):
    warp_sums = cuda.shared.array(32, int32)
    base = cuda.blockIdx.x * cuda.blockDim.x * SCAN_ITEMS
    v = int32(0)
    for k in range(SCAN_ITEMS):
        v = int32(v + x[base + k * cuda.blockDim.x + cuda.threadIdx.x])
    _, total = block_scan(v, warp_sums)
    if cuda.threadIdx.x == 0:
        block_sums[cuda.blockIdx.x] = total


@cuda.jit
def scan_sums(block_sums):
    warp_sums = cuda.shared.array(32, int32)
    nb = block_sums.size
    carry = int32(0)
    for k in range(0, nb, cuda.blockDim.x):
        i = k + cuda.threadIdx.x
        v = int32(block_sums[i]) if i < nb else int32(0)
        s, total = block_scan(v, warp_sums)
        if i < nb:
            block_sums[i] = carry + s - v
        carry = int32(carry + total)


@cuda.jit
def scan_downsweep(x, block_prefix, out):
    warp_sums = cuda.shared.array(32, int32)
    base = cuda.blockIdx.x * cuda.blockDim.x * SCAN_ITEMS
    carry = int32(block_prefix[cuda.blockIdx.x])
    for k in range(SCAN_ITEMS):
        i = base + k * cuda.blockDim.x + cuda.threadIdx.x
        s, total = block_scan(x[i], warp_sums)
        out[i] = carry + s
        carry = int32(carry + total)


# 9. Monte-Carlo π with numba.cuda.random's xoroshiro128+.
@cuda.jit
def monte_carlo_pi(states, iters, hits):
    warp_sums = cuda.shared.array(32, int32)
    tid = cuda.grid(1)
    count = int32(0)
    for _ in range(iters):
        x = xoroshiro128p_uniform_float32(states, tid)
        y = xoroshiro128p_uniform_float32(states, tid)
        if x * x + y * y <= float32(1.0):
            count = int32(count + 1)
    off = 16
    while off > 0:
        count = int32(count + cuda.shfl_down_sync(FULL, count, off))
        off >>= 1
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    if lane == 0:
        warp_sums[warp] = count
    cuda.syncthreads()
    if warp == 0:
        count = warp_sums[lane] if lane < cuda.blockDim.x // 32 else int32(0)
        off = 16
        while off > 0:
            count = int32(count + cuda.shfl_down_sync(FULL, count, off))
            off >>= 1
        if lane == 0:
            cuda.atomic.add(hits, 0, uint32(count))


# 10. Two-phase sum through a grid-wide barrier (Numba launches it cooperatively); block
# sums by a tree in dynamic shared memory (blockDim.x floats).
@cuda.jit(device=True)
def block_sum_tree(v, sm):
    tid = cuda.threadIdx.x
    sm[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s >>= 1
    total = sm[0]
    cuda.syncthreads()
    return total


@cuda.jit
def grid_sync_sum(x, partial, out):
    sm = cuda.shared.array(0, float32)
    stride = cuda.gridDim.x * cuda.blockDim.x
    v = float32(0)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    while i < x.size:
        v += x[i]
        i += stride
    v = block_sum_tree(v, sm)
    if cuda.threadIdx.x == 0:
        partial[cuda.blockIdx.x] = v
    cuda.cg.this_grid().sync()
    if cuda.blockIdx.x == 0:
        w = float32(0)
        b = cuda.threadIdx.x
        while b < cuda.gridDim.x:
            w += partial[b]
            b += cuda.blockDim.x
        w = block_sum_tree(w, sm)
        if cuda.threadIdx.x == 0:
            out[0] = w


# 11. N-body all-pairs, one step (issue 9), over a record array with the layout of
# bench/simt.rs's `Body` (see bench/cuda/simt.cu): 256 bodies at a time through a shared
# tile of positions and masses, a ragged last tile padded with massless bodies.
BODY = np.dtype([("px", np.float32), ("py", np.float32), ("pz", np.float32),
                 ("vx", np.float32), ("vy", np.float32), ("vz", np.float32),
                 ("mass", np.float32)])


@cuda.jit
def nbody(bodies, nxt, dt, softening2):
    tile = cuda.shared.array((NBODY_BLOCK, 4), float32)
    n = bodies.size
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    me = bodies[i if i < n else n - 1]
    ax = float32(0)
    ay = float32(0)
    az = float32(0)
    for base in range(0, n, NBODY_BLOCK):
        j = base + tid
        if j < n:
            b = bodies[j]
            tile[tid, 0] = b.px
            tile[tid, 1] = b.py
            tile[tid, 2] = b.pz
            tile[tid, 3] = b.mass
        else:
            tile[tid, 0] = float32(0)
            tile[tid, 1] = float32(0)
            tile[tid, 2] = float32(0)
            tile[tid, 3] = float32(0)
        cuda.syncthreads()
        for k in range(NBODY_BLOCK):
            dx = tile[k, 0] - me.px
            dy = tile[k, 1] - me.py
            dz = tile[k, 2] - me.pz
            d2 = cuda.fma(dx, dx, cuda.fma(dy, dy, cuda.fma(dz, dz, softening2)))
            inv = rsqrtf(d2)
            s = tile[k, 3] * (inv * inv * inv)
            ax = cuda.fma(dx, s, ax)
            ay = cuda.fma(dy, s, ay)
            az = cuda.fma(dz, s, az)
        cuda.syncthreads()
    if i < n:
        vx = cuda.fma(ax, dt, me.vx)
        vy = cuda.fma(ay, dt, me.vy)
        vz = cuda.fma(az, dt, me.vz)
        out = nxt[i]
        out.px = cuda.fma(vx, dt, me.px)
        out.py = cuda.fma(vy, dt, me.py)
        out.pz = cuda.fma(vz, dt, me.pz)
        out.vx = vx
        out.vy = vy
        out.vz = vz
        out.mass = me.mass


# 12. Black-Scholes (issue 9), one option per thread. Numba specialises one Python
# function per argument type, but its float literals are float64: an f32 launch of a
# single kernel would compute in f64. So one factory makes the kernel for a float type
# `ft`, the literals cast to it (cudajit's `T::from_f64`, nvcc's `T(..)`).
def make_black_scholes(ft):
    @cuda.jit(device=True)
    def cnd(d):
        k = ft(1) / cuda.fma(ft(CND_K), abs(d), ft(1))
        poly = k * cuda.fma(k, cuda.fma(k, cuda.fma(k, cuda.fma(k, ft(CND_A5), ft(CND_A4)),
                                                    ft(CND_A3)), ft(CND_A2)), ft(CND_A1))
        tail = ft(RSQRT_2PI) * math.exp(ft(-0.5) * d * d) * poly
        return ft(1) - tail if d > ft(0) else tail

    @cuda.jit
    def black_scholes(price, strike, years, rate, volatility, call, put):
        i = cuda.grid(1)
        if i < call.size:
            s = price[i]
            x = strike[i]
            t = years[i]
            sqrt_t = math.sqrt(t)
            drift = cuda.fma(ft(0.5) * volatility, volatility, rate)
            d1 = cuda.fma(drift, t, math.log(s / x)) / (volatility * sqrt_t)
            d2 = cuda.fma(-volatility, sqrt_t, d1)
            cnd1 = cnd(d1)
            cnd2 = cnd(d2)
            discount = x * math.exp(-rate * t)
            call[i] = cuda.fma(s, cnd1, -discount * cnd2)
            put[i] = cuda.fma(discount, ft(1) - cnd2, -s * (ft(1) - cnd1))

    return black_scholes


black_scholes_f32 = make_black_scholes(float32)
black_scholes_f64 = make_black_scholes(float64)


# =====================================================================================
# Host side
# =====================================================================================
stream = None


class WrongResult(Exception):
    pass


def time_us(reps, body, before=None):
    """Median µs of `reps` runs of `body`, each between its own events (after `before`,
    not timed), after WARMUP untimed runs."""
    if os.environ.get("SIMT_SMALL"):
        reps = 2
    for _ in range(WARMUP):
        if before:
            before()
        body()
    stream.synchronize()
    timing = {} if SIMULATOR else {"timing": True}  # the simulator's events take no flags
    events = [(cuda.event(**timing), cuda.event(**timing)) for _ in range(reps)]
    for start, stop in events:
        if before:
            before()
        start.record(stream)
        body()
        stop.record(stream)
    stream.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in events)


def first_call(body):
    """Runs `body` once and returns its host time in ms (Numba's JIT included)."""
    t0 = time.perf_counter()
    body()
    stream.synchronize()
    return (time.perf_counter() - t0) * 1e3


def report(kernel, us, nbytes, flops, reps, first_ms=None, extra=""):
    line = f"RESULT {kernel}.numba {us:.3f} bytes={nbytes:.0f},flops={flops:.0f},reps={reps}"
    if first_ms is not None:
        line += f",first_call_ms={first_ms:.1f}"
    print(line + extra, flush=True)


def zeroer(arr):
    zero = cuda.to_device(np.zeros(arr.size, dtype=arr.dtype))
    return lambda: arr.copy_to_device(zero, stream=stream)


def poisoned(shape, dtype):
    h = np.empty(shape, dtype=dtype)
    h.view(np.uint8)[...] = 0xFF
    return cuda.to_device(h)


def check(ok, what):
    if not ok:
        raise WrongResult(what)


def bench_copy():
    h = unit_floats(COPY_N, 10)
    a = cuda.to_device(h)
    b = poisoned(COPY_N, np.float32)
    us = time_us(50, lambda: b.copy_to_device(a, stream=stream))
    check(np.array_equal(b.copy_to_host(), h), "copy")
    report("copy", us, 2 * 4 * COPY_N, 0, 50)


def bench_copy_kernel():
    h = signed_floats(COPY_N, 12)
    inp = cuda.to_device(h)
    out = poisoned(COPY_N, np.float32)
    blocks = (COPY_N + COPY_BLOCK - 1) // COPY_BLOCK

    def body():
        copy_kernel[blocks, COPY_BLOCK, stream](inp, out)

    ms = first_call(body)
    check(np.array_equal(out.copy_to_host(), h), "copy_kernel")
    us = time_us(50, body)
    report("copy_kernel", us, 2 * 4 * COPY_N, 0, 50, ms)


def bench_sum(name, kernel):
    h = unit_floats(SUM_N, 1)
    want = float(h.sum(dtype=np.float64))
    x = cuda.to_device(h)
    out = cuda.to_device(np.zeros(1, np.float32))
    zero = zeroer(out)

    def body():
        kernel[SUM_GRID, SUM_BLOCK, stream](x, out)

    zero()
    ms = first_call(body)
    got = float(out.copy_to_host()[0])
    check(abs(got - want) <= 1e-4 * want, f"{name}: {got} != {want}")
    us = time_us(50, body, zero)
    report(name, us, 4 * SUM_N, SUM_N, 50, ms)


def check_matmul(A, B, C, name):
    n = A.shape[0]
    idx = mix(99, 1024) % np.uint64(n)
    rows, cols = idx[0::2].astype(np.int64), idx[1::2].astype(np.int64)
    rows[0], cols[0], rows[1], cols[1] = 0, 0, n - 1, n - 1
    want = np.einsum(
        "ij,ij->i", A[rows].astype(np.float64), B[:, cols].T.astype(np.float64)
    )
    got = C[rows, cols].astype(np.float64)
    bad = np.flatnonzero(~(np.abs(got - want) <= 1e-5 * n))
    check(bad.size == 0, f"{name}: C[{rows[bad[:1]]},{cols[bad[:1]]}] wrong")


def bench_fast_matmul():
    n = MAT_N
    ha = signed_floats(n * n, 2).reshape(n, n)
    hb = signed_floats(n * n, 3).reshape(n, n)
    a, b = cuda.to_device(ha), cuda.to_device(hb)
    c = poisoned((n, n), np.float32)
    grid = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)

    def body():
        fast_matmul[grid, (TPB, TPB), stream](a, b, c)

    ms = first_call(body)
    check_matmul(ha, hb, c.copy_to_host(), "fast_matmul")
    us = time_us(20, body)
    report("fast_matmul", us, 3 * 4 * n * n, 2 * n**3, 20, ms)


def bench_sgemm():
    n = GEMM_N
    ha = signed_floats(n * n, 4).reshape(n, n)
    hb = signed_floats(n * n, 5).reshape(n, n)
    a, b = cuda.to_device(ha), cuda.to_device(hb)
    c = poisoned((n, n), np.float32)
    grid = (n // BN, n // BM)

    def body():
        sgemm[grid, GEMM_THREADS, stream](a, b, c)

    ms = first_call(body)
    check_matmul(ha, hb, c.copy_to_host(), "sgemm")
    us = time_us(20, body)
    report("sgemm", us, 3 * 4 * n * n, 2 * n**3, 20, ms)


def bench_histogram():
    h = random_bytes(HIST_N, 6)
    want = np.bincount(h, minlength=BINS).astype(np.uint32)
    x = cuda.to_device(h)
    hist = cuda.to_device(np.zeros(BINS, np.uint32))
    zero = zeroer(hist)

    def body():
        histogram[HIST_GRID, HIST_BLOCK, stream](x, hist)

    zero()
    ms = first_call(body)
    check(np.array_equal(hist.copy_to_host(), want), "histogram")
    us = time_us(50, body, zero)
    report("histogram", us, HIST_N, 0, 50, ms)


def bench_transpose():
    n = TRANS_N
    h = signed_floats(n * n, 7).reshape(n, n)
    inp = cuda.to_device(h)
    out = poisoned((n, n), np.float32)
    grid = (n // TILE, n // TILE)

    def body():
        transpose[grid, (TILE, TILE_ROWS), stream](inp, out)

    ms = first_call(body)
    check(np.array_equal(out.copy_to_host(), h.T), "transpose")
    us = time_us(50, body)
    report("transpose", us, 2 * 4 * n * n, 0, 50, ms)


def bench_stencil():
    n = STENCIL_N
    h = signed_floats(n * n, 8).reshape(n, n)
    inp = cuda.to_device(h)
    out = poisoned((n, n), np.float32)
    grid = (n // ST_TILE, n // ST_TILE)

    def body():
        stencil5[grid, (ST_TILE, ST_ROWS), stream](inp, out)

    ms = first_call(body)
    p = np.pad(h.astype(np.float64), 1)
    want = 0.5 * p[1:-1, 1:-1] + 0.125 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])
    check(np.all(np.abs(out.copy_to_host() - want) <= 1e-6), "stencil")
    us = time_us(50, body)
    report("stencil", us, 2 * 4 * n * n, 6 * n * n, 50, ms)


def bench_scans():
    h = small_u32(SCAN_N, 9)
    x = cuda.to_device(h)
    out = poisoned(SCAN_N, np.uint32)
    blocks = SCAN_N // SCAN_BLOCK

    def block_body():
        scan_block[blocks, SCAN_BLOCK, stream](x, out)

    ms = first_call(block_body)
    want = np.cumsum(h.reshape(-1, SCAN_BLOCK), axis=1, dtype=np.uint32).reshape(-1)
    check(np.array_equal(out.copy_to_host(), want), "scan_block")
    us = time_us(50, block_body)
    report("scan_block", us, 2 * 4 * SCAN_N, 0, 50, ms)

    out = poisoned(SCAN_N, np.uint32)
    tiles = SCAN_N // (SCAN_BLOCK * SCAN_ITEMS)
    sums = cuda.device_array(tiles, np.uint32)

    def multi_body():
        scan_reduce[tiles, SCAN_BLOCK, stream](x, sums)
        scan_sums[1, SCAN_SUMS_BLOCK, stream](sums)
        scan_downsweep[tiles, SCAN_BLOCK, stream](x, sums, out)

    ms = first_call(multi_body)
    want = np.cumsum(h, dtype=np.uint32)
    check(np.array_equal(out.copy_to_host(), want), "scan_multi")
    us = time_us(50, multi_body)
    report("scan_multi", us, 3 * 4 * SCAN_N, 0, 50, ms)


def bench_pi():
    threads = PI_GRID * PI_BLOCK
    states = create_xoroshiro128p_states(threads, seed=PI_SEED, stream=stream)
    hits = cuda.to_device(np.zeros(1, np.uint32))
    zero = zeroer(hits)

    def body():
        monte_carlo_pi[PI_GRID, PI_BLOCK, stream](states, PI_ITERS, hits)

    zero()
    ms = first_call(body)
    samples = threads * PI_ITERS
    pi = 4.0 * int(hits.copy_to_host()[0]) / samples
    # 2^28 samples: the standard error of the estimate is 1e-4 (SIMT_SMALL: 1e-2).
    check(abs(pi - math.pi) <= (0.05 if os.environ.get("SIMT_SMALL") else 1e-3), f"monte_carlo_pi: {pi}")
    print(f"monte_carlo_pi.numba estimate {pi:.6f}")
    us = time_us(50, body, zero)
    report("monte_carlo_pi", us, 2 * 16 * threads, samples, 50, ms)


def bench_grid_sync():
    # The simulator runs blocks one after another: only a one-block grid can sync there.
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT if not SIMULATOR else 0
    grid = GS_BLOCKS_PER_SM * sms if not SIMULATOR else 1
    h = unit_floats(GS_N, 11)
    want = float(h.sum(dtype=np.float64))
    x = cuda.to_device(h)
    partial = cuda.device_array(grid, np.float32)
    out = poisoned(1, np.float32)

    def body():
        grid_sync_sum[grid, GS_BLOCK, stream, GS_BLOCK * 4](x, partial, out)

    ms = first_call(body)
    got = float(out.copy_to_host()[0])
    check(abs(got - want) <= 1e-4 * want, f"grid_sync_sum: {got} != {want}")
    us = time_us(50, body)
    report("grid_sync", us, 4 * GS_N, GS_N, 50, ms, f",grid={grid}")


def nbody_inputs(n):
    """Positions in [-10, 10)^3, velocities in [-1, 1)^3, masses in [0.5, 2)."""
    b = np.empty(n, BODY)
    for field, seed in (("px", 21), ("py", 22), ("pz", 23)):
        b[field] = np.float32(10.0) * signed_floats(n, seed)
    for field, seed in (("vx", 24), ("vy", 25), ("vz", 26)):
        b[field] = signed_floats(n, seed)
    b["mass"] = np.float32(0.5) + np.float32(1.5) * unit_floats(n, 27)
    return b


def check_nbody(bodies, nxt):
    """Spot-checks one step at 1024 bodies (the first and last among them) against an
    f64 reference, within 1e-3 of the larger of a value and 1."""
    n = bodies.size
    idx = (mix(98, 1024) % np.uint64(n)).astype(np.int64)
    idx[0], idx[1] = 0, n - 1
    pos = np.stack([bodies[f].astype(np.float64) for f in ("px", "py", "pz")], axis=1)
    vel = np.stack([bodies[f].astype(np.float64) for f in ("vx", "vy", "vz")], axis=1)
    mass = bodies["mass"].astype(np.float64)
    dt, soft = float(NBODY_DT), float(NBODY_SOFTENING2)
    for chunk in np.array_split(idx, max(1, idx.size // 64)):
        d = pos[None, :, :] - pos[chunk, None, :]
        inv = 1.0 / np.sqrt((d * d).sum(axis=2) + soft)
        acc = (d * (mass[None, :] * inv**3)[:, :, None]).sum(axis=1)
        v = vel[chunk] + acc * dt
        want = np.concatenate([pos[chunk] + v * dt, v], axis=1)
        got = np.stack([nxt[f][chunk].astype(np.float64)
                        for f in ("px", "py", "pz", "vx", "vy", "vz")], axis=1)
        ok = np.abs(got - want) <= 1e-3 * np.maximum(np.abs(want), 1.0)
        check(ok.all() and np.array_equal(nxt["mass"][chunk], bodies["mass"][chunk]),
              f"nbody: bodies {chunk[~ok.all(axis=1)][:3]}")


def bench_nbody():
    n = NBODY_N
    h = nbody_inputs(n)
    bodies = cuda.to_device(h)
    nxt = poisoned(n, BODY)
    blocks = (n + NBODY_BLOCK - 1) // NBODY_BLOCK

    def body():
        nbody[blocks, NBODY_BLOCK, stream](bodies, nxt, NBODY_DT, NBODY_SOFTENING2)

    ms = first_call(body)
    check_nbody(h, nxt.copy_to_host())
    us = time_us(20, body)
    report("nbody", us, 2 * BODY.itemsize * n, FLOPS_PER_INTERACTION * n * n, 20, ms)


def black_scholes_reference(s, x, t):
    """(call, put) by the kernels' algorithm, in f64 NumPy."""
    def cnd(d):
        k = 1.0 / (1.0 + CND_K * np.abs(d))
        poly = k * (CND_A1 + k * (CND_A2 + k * (CND_A3 + k * (CND_A4 + k * CND_A5))))
        tail = RSQRT_2PI * np.exp(-0.5 * d * d) * poly
        return np.where(d > 0, 1.0 - tail, tail)

    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (BS_RATE + 0.5 * BS_VOLATILITY * BS_VOLATILITY) * t) / (BS_VOLATILITY * sqrt_t)
    d2 = d1 - BS_VOLATILITY * sqrt_t
    discount = x * np.exp(-BS_RATE * t)
    return s * cnd(d1) - discount * cnd(d2), discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1))


def bench_black_scholes():
    n = BS_N
    price, strike, years = (np.float32(lo) + np.float32(width) * unit_floats(n, seed)
                            for seed, lo, width in ((31, 5, 25), (32, 1, 99), (33, 0.25, 9.75)))
    want_call, want_put = black_scholes_reference(
        price.astype(np.float64), strike.astype(np.float64), years.astype(np.float64))
    scale = price.astype(np.float64) + strike.astype(np.float64)
    blocks = (n + BS_BLOCK - 1) // BS_BLOCK
    for name, kernel, dtype, tol in (("black_scholes_f32", black_scholes_f32, np.float32, 1e-5),
                                     ("black_scholes_f64", black_scholes_f64, np.float64, 1e-10)):
        p, x, t = (cuda.to_device(a.astype(dtype)) for a in (price, strike, years))
        call, put = poisoned(n, dtype), poisoned(n, dtype)
        rate, vol = dtype(BS_RATE), dtype(BS_VOLATILITY)

        def body():
            kernel[blocks, BS_BLOCK, stream](p, x, t, rate, vol, call, put)

        ms = first_call(body)
        c, q = call.copy_to_host().astype(np.float64), put.copy_to_host().astype(np.float64)
        bad = ~((np.abs(c - want_call) <= tol * scale) & (np.abs(q - want_put) <= tol * scale))
        check(not bad.any(), f"{name}: options {np.flatnonzero(bad)[:3]}")
        us = time_us(50, body)
        report(name, us, 5 * np.dtype(dtype).itemsize * n, 0, 50, ms)


BENCHES = [
    ("copy", bench_copy),
    ("copy_kernel", bench_copy_kernel),
    ("sum_shared", lambda: bench_sum("sum_shared", sum_shared)),
    ("sum_warp", lambda: bench_sum("sum_warp", sum_warp)),
    ("fast_matmul", bench_fast_matmul),
    ("sgemm", bench_sgemm),
    ("histogram", bench_histogram),
    ("transpose", bench_transpose),
    ("stencil", bench_stencil),
    ("scan", bench_scans),
    ("monte_carlo_pi", bench_pi),
    ("grid_sync", bench_grid_sync),
    ("nbody", bench_nbody),
    ("black_scholes", bench_black_scholes),
]


def main(argv):
    global stream
    if not cuda.is_available():
        print("skipped: numba finds no CUDA device")
        return 0
    import numba

    name = cuda.get_current_device().name if not SIMULATOR else "Numba's CUDA simulator"
    print(f"simt numba: numba {numba.__version__}, numpy {np.__version__}, {name}")
    stream = cuda.stream()
    status = 0
    for name, bench in BENCHES:
        if len(argv) > 1 and name not in argv[1:]:
            continue
        # One kernel failing (wrong result, a compile error) must not hide the others.
        try:
            bench()
        except WrongResult as e:
            print(f"simt numba: wrong result: {e}", file=sys.stderr)
            status = 1
        except Exception as e:
            print(f"simt numba: {name} failed: {type(e).__name__}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
