# issue 27 probe 3: is a cubin from the driver's linker (cuLinkAddData + cuLinkComplete) the same machine code
# as cuModuleLoadData(PTX) makes? Registers per kernel, and the image size, for each route.
# Inputs (in the working directory): u.ptx, copy.ptx, c.ptx, empty.ptx (and whole.ptx): vecadd_nocheck, vecadd's launch-proven copy alone,
# the checked vecadd and an empty kernel, as libnvvm 13.0.88 compiles them (CUDAJIT_DUMP=1 writes a kernel's PTX beside its cache entry).
import ctypes, sys, os
cu=ctypes.CDLL("libcuda.so.1"); P=ctypes.c_void_p
assert cu.cuInit(0)==0
dev=ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev),0)
ctx=P(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx),dev); cu.cuCtxSetCurrent(ctx)
def regs(mod, name):
    f=P(); r=cu.cuModuleGetFunction(ctypes.byref(f),mod,name.encode()); assert r==0,(name,r)
    out=[]
    for attr in (4,1,3):  # NUM_REGS, SHARED_SIZE_BYTES? (1), LOCAL_SIZE_BYTES (3)
        v=ctypes.c_int(); cu.cuFuncGetAttribute(ctypes.byref(v),attr,f); out.append(v.value)
    return out
def via_load(b):
    m=P(); r=cu.cuModuleLoadData(ctypes.byref(m),b); assert r==0,r; return m
def via_link(b):
    st=P(); assert cu.cuLinkCreate_v2(0,None,None,ctypes.byref(st))==0
    assert cu.cuLinkAddData_v2(st,1,b,len(b),b"m",0,None,None)==0
    img=P(); n=ctypes.c_size_t(); assert cu.cuLinkComplete(st,ctypes.byref(img),ctypes.byref(n))==0
    data=ctypes.string_at(img,n.value); cu.cuLinkDestroy(st)
    return via_load(data), len(data)
for f,kernels in [("c.ptx",["vecadd"]),("whole.ptx",["vecadd","vecadd__launch_proven"]),("u.ptx",None)]:
    b=open(f,"rb").read()+b"\0"
    if kernels is None:
        import re; kernels=re.findall(rb"\.entry (\w+)\(",b); kernels=[k.decode() for k in kernels]
    m1=via_load(b); m2,n=via_link(b)
    for k in kernels:
        print(f"{f:10s} {k:24s} load regs/shared/local {regs(m1,k)}  link {regs(m2,k)}  (linked cubin {n} B)")
for f in sys.argv[1:]:
    data=open(f,"rb").read(); m=via_load(data)
    print(f"{f:10s} ptxas cubin ({len(data)} B): vecadd regs/shared/local {regs(m,'vecadd')}")
os._exit(0)
