# issue 27 probe: the driver's PTX JIT against nvJitLink (PTX -> cubin in process, then the cubin loaded),
# cold, warmed on the calling thread, and on a dedicated thread warmed while the context is created.
# Inputs (in the working directory): u.ptx, copy.ptx, c.ptx, empty.ptx (and whole.ptx): vecadd_nocheck, vecadd's launch-proven copy alone,
# the checked vecadd and an empty kernel, as libnvvm 13.0.88 compiles them (CUDAJIT_DUMP=1 writes a kernel's PTX beside its cache entry).
import ctypes, time, sys, threading, queue, os, glob
mode=sys.argv[1]
cu=ctypes.CDLL("libcuda.so.1")
P=ctypes.c_void_p
def njl_lib():
    for pat in ["/usr/local/cuda/lib64/libnvJitLink.so.13*","/usr/local/cuda*/lib64/libnvJitLink.so.13*","/usr/local/cuda*/targets/x86_64-linux/lib/libnvJitLink.so.13*"]:
        for f in sorted(glob.glob(pat)): return ctypes.CDLL(f), f
    raise SystemExit("no libnvJitLink")
PTX={n:open(n+".ptx","rb").read()+b"\0" for n in ["u","copy","c","empty"]}
opts=[b"-arch=sm_90", b"-O3"]; arr=(ctypes.c_char_p*len(opts))(*opts)
def njl_compile(lib, b):
    h=P(); assert lib.nvJitLinkCreate(ctypes.byref(h),len(opts),arr)==0
    assert lib.nvJitLinkAddData(h,2,b,len(b)-1,b"m")==0
    assert lib.nvJitLinkComplete(h)==0
    n=ctypes.c_size_t(); lib.nvJitLinkGetLinkedCubinSize(h,ctypes.byref(n))
    buf=ctypes.create_string_buffer(n.value); lib.nvJitLinkGetLinkedCubin(h,buf)
    lib.nvJitLinkDestroy(ctypes.byref(h)); return buf
def load(image):
    m=P(); r=cu.cuModuleLoadData(ctypes.byref(m), image); assert r==0, r; return m
ms=lambda t: 1e3*(time.perf_counter()-t)
out=[]
t0=time.perf_counter(); assert cu.cuInit(0)==0
dev=ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev),0)
worker=None
if mode in ("njl_worker","drv_worker"):
    jobs=queue.Queue(); done=queue.Queue()
    def run():
        lib=None
        while True:
            job=jobs.get()
            if job is None: return
            kind,name=job; t=time.perf_counter()
            if kind=="njl":
                if lib is None: lib=njl_lib()[0]
                done.put((njl_compile(lib,PTX[name]),ms(t)))
            else:
                cu.cuCtxSetCurrent(ctx); done.put((load(PTX[name]),ms(t)))
    worker=threading.Thread(target=run,daemon=True); worker.start()
    if mode=="njl_worker": jobs.put(("njl","empty"))
ctx=P(); t=time.perf_counter(); assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx),dev)==0; cu.cuCtxSetCurrent(ctx); out.append(("ctx",ms(t)))
if mode=="drv_worker": jobs.put(("drv","empty"))
if worker: _,w=done.get(); out.append(("warm",w))
if mode=="njl_main":
    lib=njl_lib()[0]; t=time.perf_counter(); njl_compile(lib,PTX["empty"]); out.append(("warm",ms(t)))
time.sleep(0.02)
for name in ["copy","u","c"]:
    t=time.perf_counter()
    if mode=="drv": load(PTX[name])
    elif mode=="njl_cold" or mode=="njl_main":
        if mode=="njl_cold" and name=="copy": lib=njl_lib()[0]
        load(njl_compile(lib,PTX[name]))
    elif mode=="njl_worker": jobs.put(("njl",name)); img,_=done.get(); load(img)
    elif mode=="drv_worker": jobs.put(("drv",name)); done.get()
    out.append((name,ms(t)))
print("RESULT", mode, " ".join(f"{k}={v:.2f}" for k,v in out), flush=True)
os._exit(0)
