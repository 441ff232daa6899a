// Issue 27 probe (s50): does cuLibraryLoadData JIT-compile PTX before any context
// exists, so that a context later only takes the compiled module (cuLibraryGetModule)?
// libprobe FILE.ptx: (1) the library loaded before the context (JIT wall time by the
// driver's clock), (2) the primary context retained, (3) cuLibraryGetModule,
// cuModuleGetFunction, a launch and its synchronisation; then the same PTX (salted, so
// the JIT cache cannot answer) through cuModuleLoadDataEx in the context for comparison.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static char *slurp(const char *path, int salt) {
  FILE *f = fopen(path, "rb"); if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char *b = malloc(n + 64); if (fread(b, 1, n, f) != (size_t)n) exit(2); fclose(f);
  sprintf(b + n, "\n// salt %d %ld\n", salt, (long)(now_ms() * 1000));
  return b;
}
#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s: %d\n", #x, r_); exit(3); } } while (0)
static float jit_ms(void *v) { union { void *p; float f; } j; j.p = v; return j.f; }
int main(int argc, char **argv) {
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0));
  char *a = slurp(argv[1], 1), *b = slurp(argv[1], 2);
  CUjit_option o[1] = {CU_JIT_WALL_TIME}; void *v[1] = {0};
  double t0 = now_ms(); CUlibrary lib; CK(cuLibraryLoadData(&lib, a, o, v, 1, 0, 0, 0)); double t1 = now_ms();
  printf("library load, no context    %7.2f ms (driver JIT clock %.2f ms)\n", t1 - t0, jit_ms(v[0]));
  CUcontext ctx; t0 = now_ms(); CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx)); t1 = now_ms();
  printf("context retained            %7.2f ms\n", t1 - t0);
  CUmodule m; t0 = now_ms(); CK(cuLibraryGetModule(&m, lib)); t1 = now_ms();
  CUfunction f; CK(cuModuleGetFunction(&f, m, "vecadd")); double t2 = now_ms();
  printf("cuLibraryGetModule          %7.2f ms, cuModuleGetFunction %.3f ms\n", t1 - t0, t2 - t1);
  int n = 1 << 20; CUdeviceptr x, y, z; CK(cuMemAlloc(&x, 4 * n)); CK(cuMemAlloc(&y, 4 * n)); CK(cuMemAlloc(&z, 4 * n));
  void *args[] = {&x, &y, &z, &n};
  t0 = now_ms(); CK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize()); t1 = now_ms();
  printf("first launch + sync         %7.2f ms\n", t1 - t0);
  CUmodule m2; v[0] = 0; t0 = now_ms(); CK(cuModuleLoadDataEx(&m2, b, 1, o, v)); t1 = now_ms();
  printf("cuModuleLoadDataEx, context %7.2f ms (driver JIT clock %.2f ms)\n", t1 - t0, jit_ms(v[0]));
  CUfunction f2; t0 = now_ms(); CK(cuModuleGetFunction(&f2, m2, "vecadd")); CK(cuLaunchKernel(f2, n / 256, 1, 1, 256, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize()); t1 = now_ms();
  printf("its function + launch + sync%7.2f ms\n", t1 - t0);
  CK(cuLibraryUnload(lib));
  return 0;
}
