# issue 27 probe 2: can the driver's PTX compiler (cuLinkAddData) run on a thread with no context, while the
# primary context is being created? Then compile on that warmed thread and load the cubin on the caller.
# Inputs (in the working directory): u.ptx, copy.ptx, c.ptx, empty.ptx (and whole.ptx): vecadd_nocheck, vecadd's launch-proven copy alone,
# the checked vecadd and an empty kernel, as libnvvm 13.0.88 compiles them (CUDAJIT_DUMP=1 writes a kernel's PTX beside its cache entry).
import ctypes, time, sys, threading, queue, os
mode=sys.argv[1]
cu=ctypes.CDLL("libcuda.so.1")
P=ctypes.c_void_p
PTX={n:open(n+".ptx","rb").read()+b"\0" for n in ["u","copy","c","empty"]}
ms=lambda t: 1e3*(time.perf_counter()-t)
CU_JIT_TARGET=9; CU_TARGET_COMPUTE_90=90; CU_JIT_INPUT_PTX=1
def link(b, with_target):
    st=P()
    if with_target:
        o=(ctypes.c_int*1)(CU_JIT_TARGET); v=(P*1)(P(CU_TARGET_COMPUTE_90))
        r=cu.cuLinkCreate_v2(1,o,v,ctypes.byref(st))
    else:
        r=cu.cuLinkCreate_v2(0,None,None,ctypes.byref(st))
    if r: return ("create",r)
    r=cu.cuLinkAddData_v2(st,CU_JIT_INPUT_PTX,b,len(b),b"m",0,None,None)
    if r: return ("add",r)
    img=P(); n=ctypes.c_size_t(); r=cu.cuLinkComplete(st,ctypes.byref(img),ctypes.byref(n))
    if r: return ("complete",r)
    buf=ctypes.create_string_buffer(ctypes.string_at(img,n.value),n.value)
    cu.cuLinkDestroy(st); return buf
def load(image):
    m=P(); r=cu.cuModuleLoadData(ctypes.byref(m), image); assert r==0, r; return m
out=[]
t=time.perf_counter(); assert cu.cuInit(0)==0; out.append(("init",ms(t)))
dev=ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev),0)
jobs=queue.Queue(); done=queue.Queue()
def run():
    while True:
        job=jobs.get()
        if job is None: return
        name,tgt=job; t=time.perf_counter(); r=link(PTX[name],tgt); done.put((r,ms(t),time.perf_counter()))
worker=threading.Thread(target=run,daemon=True); worker.start()
tgt = mode!="notarget"
if mode in ("noctx","notarget"): jobs.put(("empty",tgt))
ctx=P(); t=time.perf_counter(); assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx),dev)==0; cu.cuCtxSetCurrent(ctx); tc=time.perf_counter(); out.append(("ctx",ms(t)))
if mode=="afterctx": jobs.put(("empty",tgt))
if mode!="cold":
    r,w,tend=done.get()
    if not isinstance(r, ctypes.Array): print("RESULT",mode,"warm_failed",r); os._exit(0)
    out.append(("warm",w)); out.append(("warm_end_after_ctx",1e3*(tend-tc)))
for name in ["copy","u","c"]:
    t=time.perf_counter()
    if mode=="cold": img=link(PTX[name],True)
    else: jobs.put((name,tgt)); img,_,_=done.get()
    assert isinstance(img, ctypes.Array), img
    load(img); out.append((name,ms(t)))
print("RESULT", mode, " ".join(f"{k}={v:.2f}" for k,v in out), flush=True)
os._exit(0)
