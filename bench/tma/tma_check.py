# Runs cudajit's TMA round-trip kernel (PTX written by kernel-device's back/nvvm/tests/tma.rs)
# on the GPU for several maps, through the driver API (ctypes): encodes each map with
# cuTensorMapEncodeTiled, loads a box into swizzled shared memory on an mbarrier, dumps
# the tile's raw bytes, stores the tile to a poisoned copy of the tensor. Writes the
# raw results (hex) for kernel-device's hardware fixture test and prints a summary.
import ctypes as C, os, struct, subprocess, sys
# Each case runs in a process of its own (`tma_check.py ARCH INDEX`): a fault is sticky
# and would take the rest of a shared context down (the first H200 run lost five cases
# to the second's CUDA_ERROR_ILLEGAL_INSTRUCTION).
# name, driver type, elem bytes, dims (inner first), row stride bytes, box (inner first), swizzle, oob, coords
U16, F32 = 1, 7
# The cases that stopped the kernel with CUDA_ERROR_ILLEGAL_INSTRUCTION on the first runs
# (sw64 at (-8, -3), sw32 at (90, 36), unswizzled at (10, 2)) are kept beside variants
# that separate the suspects: an inner coordinate whose byte offset is not a multiple of
# 16 (90 and 10 u16s are 180 and 20 bytes), negative coordinates on either axis, and
# the swizzle mode itself. The half-span case dumps twice the box's bytes: the rows are
# padded to the 128-byte span.
CASES = [
    ("u16_sw128_edge", U16, 2, (100, 40), 208, (64, 16), 3, 0, (64, 32)),
    ("u16_sw64_negative", U16, 2, (100, 40), 208, (32, 8), 2, 0, (-8, -3)),
    ("u16_sw64_inside", U16, 2, (100, 40), 208, (32, 8), 2, 0, (0, 0)),
    ("u16_sw64_negative_x", U16, 2, (100, 40), 208, (32, 8), 2, 0, (-8, 0)),
    ("u16_sw64_negative_y", U16, 2, (100, 40), 208, (32, 8), 2, 0, (0, -3)),
    ("u16_sw32_corner", U16, 2, (100, 40), 208, (16, 8), 1, 0, (90, 36)),
    ("u16_sw32_corner_aligned", U16, 2, (100, 40), 208, (16, 8), 1, 0, (88, 36)),
    ("u16_none_inside", U16, 2, (100, 40), 208, (24, 5), 0, 0, (10, 2)),
    ("u16_none_aligned", U16, 2, (100, 40), 208, (24, 5), 0, 0, (8, 2)),
    ("u16_sw128_half_span", U16, 2, (100, 40), 208, (32, 16), 3, 0, (0, 0)),
    ("f32_sw128_nan_fill", F32, 4, (50, 20), 208, (32, 8), 3, 1, (32, 16)),
    ("u16_sw128_negative", U16, 2, (100, 40), 208, (64, 16), 3, 0, (-64, -5)),
    ("u16_sw128_misaligned_x", U16, 2, (100, 40), 208, (64, 16), 3, 0, (4, 0)),
]
if len(sys.argv) == 2:
    print(f"--- {sys.argv[1]} ---", flush=True)
    for index in range(len(CASES)):
        # A load whose bytes never complete spins on its mbarrier for ever: a hang.
        try:
            r = subprocess.run([sys.executable, sys.argv[0], sys.argv[1], str(index)], timeout=30)
            if r.returncode != 0:
                print(f"{CASES[index][0]}: process exited with {r.returncode}", flush=True)
        except subprocess.TimeoutExpired:
            print(f"{CASES[index][0]}: HANG (killed after 30 s)", flush=True)
    sys.exit(0)
CASES = [CASES[int(sys.argv[2])]]
cu = C.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0:
        name = C.c_char_p(); cu.cuGetErrorName(r, C.byref(name))
        raise RuntimeError(f"{what}: {r} {name.value}")
ck(cu.cuInit(0), "cuInit")
dev = C.c_int(); ck(cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
ctx = C.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "retain"); ck(cu.cuCtxSetCurrent(ctx), "setcurrent")
arch = sys.argv[1]
ptx = open(f"tma_box_{arch}.ptx", "rb").read() + b"\0"
mod = C.c_void_p(); ck(cu.cuModuleLoadData(C.byref(mod), ptx), "cuModuleLoadData")
fn = C.c_void_p(); ck(cu.cuModuleGetFunction(C.byref(fn), mod, b"tma_box"), "getfunction")
cu.cuMemAlloc_v2.argtypes = [C.POINTER(C.c_uint64), C.c_size_t]
cu.cuMemcpyHtoD_v2.argtypes = [C.c_uint64, C.c_void_p, C.c_size_t]
cu.cuMemcpyDtoH_v2.argtypes = [C.c_void_p, C.c_uint64, C.c_size_t]
cu.cuTensorMapEncodeTiled.argtypes = [C.c_void_p, C.c_uint, C.c_uint, C.c_void_p, C.POINTER(C.c_uint64), C.POINTER(C.c_uint64), C.POINTER(C.c_uint32), C.POINTER(C.c_uint32), C.c_uint, C.c_uint, C.c_uint, C.c_uint]
def alloc(n):
    p = C.c_uint64(); ck(cu.cuMemAlloc_v2(C.byref(p), n), "alloc"); return p.value
out = open(os.path.join(os.environ.get("OUT", "."), f"tma_h200_{arch}.txt"), "a")
summary = []
for (name, dtype, esz, dims, stride, box, swz, oob, coords) in CASES:
    try:
        cols, rows = dims
        nbytes = stride * rows
        host = bytearray(nbytes)
        for r in range(rows):
            for c in range(cols):
                v = r * 128 + c
                if esz == 2: struct.pack_into("<H", host, r * stride + 2 * c, v)
                else: struct.pack_into("<f", host, r * stride + 4 * c, float(v))
        src = alloc(nbytes); dst = alloc(nbytes)
        poison = bytes([0xAB]) * nbytes
        hb = (C.c_char * nbytes).from_buffer(host)
        ck(cu.cuMemcpyHtoD_v2(src, hb, nbytes), "htod")
        ck(cu.cuMemcpyHtoD_v2(dst, C.c_char_p(poison), nbytes), "htod poison")
        boxbytes = box[0] * box[1] * esz
        # Rows padded to the swizzle span (proc::tma::TensorMapLayout::smem_row_pitch).
        pitch = max(box[0] * esz, {0: 0, 1: 32, 2: 64, 3: 128}[swz])
        smembytes = pitch * box[1]
        dump = alloc(smembytes)
        maps = []
        for base in (src, dst):
            m = (C.c_uint64 * 24)()  # 192 bytes, a 64-aligned 128-byte window inside
            addr = (C.addressof(m) + 63) // 64 * 64
            gd = (C.c_uint64 * 2)(*dims); gs = (C.c_uint64 * 1)(stride)
            bd = (C.c_uint32 * 2)(*box); es = (C.c_uint32 * 2)(1, 1)
            ck(cu.cuTensorMapEncodeTiled(C.c_void_p(addr), dtype, 2, C.c_void_p(base), gd, gs, bd, es, 0, swz, 0, oob), "encode")
            maps.append((m, addr))
        a_dump = C.c_uint64(dump); a_c0 = C.c_int32(coords[0]); a_c1 = C.c_int32(coords[1]); a_tx = C.c_int32(boxbytes); a_n = C.c_int32(smembytes)
        params = (C.c_void_p * 7)(maps[0][1], maps[1][1], C.addressof(a_dump), C.addressof(a_c0), C.addressof(a_c1), C.addressof(a_tx), C.addressof(a_n))
        ck(cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, None, params, None), "launch")
        ck(cu.cuCtxSynchronize(), "sync")
        tile = (C.c_char * smembytes)(); ck(cu.cuMemcpyDtoH_v2(tile, dump, smembytes), "dtoh tile")
        back = (C.c_char * nbytes)(); ck(cu.cuMemcpyDtoH_v2(back, dst, nbytes), "dtoh dst")
        tile = bytes(tile); back = bytes(back)
        # Model: proc::tma's swizzle (Swizzle<B,4,3>) over the box, rows at `pitch`.
        bits = {0: 0, 1: 1, 2: 2, 3: 3}[swz]
        def swizzle(o): return o if bits == 0 else o ^ ((o & (((1 << bits) - 1) << 7)) >> 3)
        # Zeros, or the NaN fill: 0x7ff7 in every half-word (proc::tma's fill_bytes).
        fill = b"\0" * esz if oob == 0 else b"\xf7\x7f" * (esz // 2)
        mism = 0; fills = set()
        for i in range(box[0] * box[1]):
            bx, by = i % box[0], i // box[0]
            x, y = coords[0] + bx, coords[1] + by
            at = swizzle(by * pitch + bx * esz)
            got = tile[at:at + esz]
            if 0 <= x < cols and 0 <= y < rows:
                want = host[y * stride + x * esz: y * stride + x * esz + esz]
                mism += got != want
            else:
                fills.add(got.hex())
                if fill is not None: mism += got != fill
        # The store writes exactly the in-bounds window.
        store_bad = 0
        for y in range(rows):
            for x in range(cols):
                inside = coords[0] <= x < coords[0] + box[0] and coords[1] <= y < coords[1] + box[1]
                o = y * stride + x * esz
                want = host[o:o + esz] if inside else poison[o:o + esz]
                store_bad += back[o:o + esz] != want
        line = f"{name}: tile mismatches vs model {mism} of {box[0]*box[1]}; oob fill bytes seen {sorted(fills)}; store mismatches {store_bad}"
        summary.append(line)
        out.write(f"case {name} type {dtype} elem {esz} dims {dims[0]} {dims[1]} stride {stride} box {box[0]} {box[1]} swizzle {swz} oob {oob} coords {coords[0]} {coords[1]}\n")
        out.write("input " + bytes(host).hex() + "\n")
        out.write("tile " + tile.hex() + "\n")
        out.write("stored " + back.hex() + "\n")
    except Exception as e:
        summary.append(f"{name}: ERROR {e}")
out.close()
print("\n".join(summary), flush=True)
