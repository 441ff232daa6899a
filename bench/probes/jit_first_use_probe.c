// Issue 27 probe (s49): what a process's first PTX JIT pays, and whether it can be paid
// while the context is created. jitfirst [--lib MODE] [--arena1-note] [--thread N] FILE.ptx...
//   --lib main-before: cuLibraryLoadData(w.ptx) on the main thread after cuInit, before the context
//   --lib main-during: the context retained on a helper thread while the main thread loads the library
//   --lib helper-during: the library loaded on a helper thread while the main thread retains the context
//   --thread N: the last N files are loaded on a new thread (after the main thread's)
//   --warm FILE: the library's PTX (w.ptx; loaded as it is, no salt: the driver's JIT cache may hold it)
//   --jitopt debug|O0|lineinfo: one JIT option for the library's load
// Each FILE is loaded with cuModuleLoadDataEx (made distinct by a trailing comment); per load:
// wall ms, the JIT's own wall ms, minor faults, user and system CPU ms of the process.
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static char *slurp(const char *path, int salt) {
  FILE *f = fopen(path, "rb"); if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char *b = malloc(n + 64); if (fread(b, 1, n, f) != (size_t)n) exit(2); fclose(f);
  if (salt >= 0) sprintf(b + n, "\n// salt %d %ld\n", salt, (long)(now_ms() * 1000)); else b[n] = 0;
  return b;
}
typedef struct { double wall, user, sys; long minflt; } Usage;
static Usage usage(void) {
  struct rusage r; getrusage(RUSAGE_SELF, &r); Usage u;
  u.wall = now_ms(); u.user = r.ru_utime.tv_sec * 1e3 + r.ru_utime.tv_usec / 1e3;
  u.sys = r.ru_stime.tv_sec * 1e3 + r.ru_stime.tv_usec / 1e3; u.minflt = r.ru_minflt; return u;
}
static void report(const char *what, Usage a, Usage b, const char *extra) {
  printf("%-26s %7.2f ms  user %6.2f sys %6.2f  minflt %6ld %s\n", what, b.wall - a.wall, b.user - a.user, b.sys - a.sys, b.minflt - a.minflt, extra);
}
static void load(const char *ptx, const char *name) {
  CUjit_option o[1] = {CU_JIT_WALL_TIME}; void *v[1] = {0}; CUmodule m;
  Usage a = usage(); CUresult r = cuModuleLoadDataEx(&m, ptx, 1, o, v); Usage b = usage();
  if (r) { fprintf(stderr, "load %s failed %d\n", name, r); exit(3); }
  union { void *p; float f; } j; j.p = v[0]; char extra[64]; sprintf(extra, "jit %.2f ms", j.f);
  report(name, a, b, extra);
}
static CUdevice dev; static CUcontext ctx; static char *warm; static CUlibrary lib; static CUresult lib_rc;
static Usage lib_a, lib_b, ctx_a, ctx_b;
static void *retain(void *arg) { ctx_a = usage(); cuDevicePrimaryCtxRetain(&ctx, dev); ctx_b = usage(); return 0; }
static CUjit_option jit_opt[1]; static void *jit_val[1]; static unsigned jit_n = 0;
static void *library(void *arg) {
  lib_a = usage(); lib_rc = cuLibraryLoadData(&lib, warm, jit_opt, jit_val, jit_n, 0, 0, 0); lib_b = usage(); return 0;
}
typedef struct { char **files; int n, first; } Job;
static void *thread_loads(void *arg) {
  Job *j = arg; cuCtxSetCurrent(ctx);
  for (int f = 0; f < j->n; f++) { char name[64]; snprintf(name, 64, "thread %s", j->files[f]); load(slurp(j->files[f], j->first + f), name); }
  return 0;
}
int main(int argc, char **argv) {
  const char *mode = "", *warm_file = "w.ptx"; int on_thread = 0, i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--lib")) mode = argv[++i];
    else if (!strcmp(argv[i], "--thread")) on_thread = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warm")) warm_file = argv[++i];
    else if (!strcmp(argv[i], "--jitopt")) {
      const char *o = argv[++i]; jit_n = 1;
      if (!strcmp(o, "debug")) { jit_opt[0] = CU_JIT_GENERATE_DEBUG_INFO; jit_val[0] = (void *)1; }
      else if (!strcmp(o, "O0")) { jit_opt[0] = CU_JIT_OPTIMIZATION_LEVEL; jit_val[0] = (void *)0; }
      else if (!strcmp(o, "lineinfo")) { jit_opt[0] = CU_JIT_GENERATE_LINE_INFO; jit_val[0] = (void *)1; }
      else jit_n = 0;
    }
  }
  Usage a = usage(); cuInit(0); cuDeviceGet(&dev, 0); report("init", a, usage(), "");
  warm = slurp(warm_file, -1); pthread_t th;
  if (!strcmp(mode, "main-before")) { library(0); retain(0); }
  else if (!strcmp(mode, "main-during")) { pthread_create(&th, 0, retain, 0); library(0); pthread_join(th, 0); }
  else if (!strcmp(mode, "helper-during")) { pthread_create(&th, 0, library, 0); retain(0); pthread_join(th, 0); }
  else retain(0);
  cuCtxSetCurrent(ctx);
  report("context", ctx_a, ctx_b, "");
  if (*mode) {
    char extra[64]; sprintf(extra, "rc %d", lib_rc); report("library load (w)", lib_a, lib_b, extra);
    CUkernel k; CUfunction fn; Usage c = usage();
    CUresult r = lib_rc ? lib_rc : cuLibraryGetKernel(&k, lib, "cudajit_nvvm_warm_up"); if (!r) r = cuKernelGetFunction(&fn, k);
    sprintf(extra, "rc %d", r); report("library kernel in context", c, usage(), extra);
  }
  int main_n = argc - i - on_thread;
  for (int f = 0; f < main_n; f++) load(slurp(argv[i + f], i + f), argv[i + f]);
  if (on_thread > 0) { Job j = {argv + i + main_n, on_thread, i + main_n}; pthread_create(&th, 0, thread_loads, &j); pthread_join(th, 0); }
  return 0;
}
