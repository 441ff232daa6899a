// Issue 27 probe (s46): does any form of the driver's launch cost less host time than the
// plain cuLaunchKernel(kernelParams) on a created stream? Interleaved rounds, median ns/launch.
// Build: gcc -O2 -o launch_probe launch_entry_probe.c -lcuda; run: launch_probe vecadd.ptx
// (nvcc -O3 -arch=sm_90 -ptx bench/cuda/vecadd.cu: its vecadd_abi kernel).
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorString(r_, &s); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1);} } while (0)
static double now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static char *slurp(const char *p) { FILE *f = fopen(p, "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET); char *b = malloc(n + 1); fread(b, 1, n, f); b[n] = 0; fclose(f); return b; }
enum { L = 2000, ROUNDS = 101, V = 8 };
static CUfunction fn; static CUstream created, blocking; static CUdeviceptr a, b, c; static unsigned long long n = 1024, rec = 0;
static int variant(int v, CUstream s) {
  void *kp[6] = { &a, &n, &b, &n, &c, &n };
  unsigned long long buf[6] = { a, n, b, n, c, n }; size_t sz = sizeof buf;
  void *extra[5] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &sz, CU_LAUNCH_PARAM_END };
  CUlaunchConfig cfg; memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = 4; cfg.gridDimY = 1; cfg.gridDimZ = 1; cfg.blockDimX = 256; cfg.blockDimY = 1; cfg.blockDimZ = 1; cfg.hStream = s;
  switch (v) {
    case 0: case 4: case 5: case 6: return cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, s, kp, 0);
    case 1: case 7: return cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, s, 0, extra);
    case 2: return cuLaunchKernelEx(&cfg, fn, kp, 0);
    case 3: return cuLaunchKernelEx(&cfg, fn, 0, extra);
  }
  return 1;
}
static const char *names[V] = { "kernelParams, created non-blocking", "packed, created non-blocking", "Ex kernelParams, created", "Ex packed, created",
  "kernelParams, legacy NULL", "kernelParams, per-thread default", "kernelParams, created blocking", "packed, per-thread default" };
static CUstream stream_of(int v) { return v == 4 ? (CUstream)0 : (v == 5 || v == 7) ? CU_STREAM_PER_THREAD : v == 6 ? blocking : created; }
static int cmp(const void *x, const void *y) { double d = *(double *)x - *(double *)y; return d < 0 ? -1 : d > 0; }
int main(int argc, char **argv) {
  CUdevice d; CUcontext ctx; CUmodule m;
  CK(cuInit(0)); CK(cuDeviceGet(&d, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, d)); CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&m, slurp(argv[1]))); CK(cuModuleGetFunction(&fn, m, "vecadd_abi"));
  CK(cuStreamCreate(&created, CU_STREAM_NON_BLOCKING)); CK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
  CK(cuMemAlloc(&a, 4096)); CK(cuMemAlloc(&b, 4096)); CK(cuMemAlloc(&c, 4096));
  static double t[V][ROUNDS];
  for (int w = 0; w < V; w++) { for (int i = 0; i < L; i++) CK(variant(w, stream_of(w))); CK(cuCtxSynchronize()); }
  for (int r = 0; r < ROUNDS; r++)
    for (int k = 0; k < V; k++) {
      int v = (k + r) % V; CUstream s = stream_of(v);
      double t0 = now_ns();
      for (int i = 0; i < L; i++) if (variant(v, s)) { fprintf(stderr, "launch failed %d\n", v); return 1; }
      t[v][r] = (now_ns() - t0) / L;
      CK(cuCtxSynchronize());
    }
  for (int v = 0; v < V; v++) { qsort(t[v], ROUNDS, sizeof(double), cmp); }
  for (int v = 0; v < V; v++) printf("PROBE %-40s %8.1f ns  x %.4f  (q1 %.1f q3 %.1f)\n", names[v], t[v][ROUNDS / 2], t[v][ROUNDS / 2] / t[0][ROUNDS / 2], t[v][ROUNDS / 4], t[v][3 * ROUNDS / 4]);
  return 0;
}
