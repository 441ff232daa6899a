import ctypes, time, sys, statistics
import os; lib=ctypes.CDLL(os.environ.get("NVVM_LIB","/usr/local/cuda/nvvm/lib64/libnvvm.so"))
P=ctypes.c_void_p
def compile(ir, opts):
    p=P(); assert lib.nvvmCreateProgram(ctypes.byref(p))==0
    b=ir.encode(); assert lib.nvvmAddModuleToProgram(p,b,len(b),b"m")==0
    arr=(ctypes.c_char_p*len(opts))(*[o.encode() for o in opts])
    t=time.perf_counter(); r=lib.nvvmCompileProgram(p,len(opts),arr); dt=time.perf_counter()-t
    if r: 
        n=ctypes.c_size_t(); lib.nvvmGetProgramLogSize(p,ctypes.byref(n)); buf=ctypes.create_string_buffer(n.value); lib.nvvmGetProgramLog(p,buf); print(buf.value.decode()[:2000]); sys.exit(1)
    lib.nvvmDestroyProgram(ctypes.byref(p)); return dt
base=["-arch=compute_90","-fma=0"]
variants={}
for f in sys.argv[1:]:
    ir=open(f).read()
    variants[f+" O3 lines"]=(ir,base+["-opt=3","-generate-line-info"])
    variants[f+" O3"]=(ir,base+["-opt=3"])
    variants[f+" O0"]=(ir,base+["-opt=0"])
compile(open(sys.argv[1]).read(), base+["-opt=0"])  # first-compile registrations
t={k:[] for k in variants}
for i in range(int(os.environ.get("REPS","15"))):
    for k,(ir,o) in variants.items(): t[k].append(compile(ir,o))
for k in variants: print(f"{k:28s} min {min(t[k])*1e3:6.2f} med {statistics.median(t[k])*1e3:6.2f} ms")
