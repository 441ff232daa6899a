// Issue 27 probe (s49): the host cost of ordering two streams that take turns launching a
// kernel, by an event (cuEventRecord + cuStreamWaitEvent, how cudajit orders them) against
// stream memory operations (cuStreamWriteValue32 after the launch, cuStreamWaitValue32
// before the other stream's). streamorder CUBIN KERNEL: 1024-element vecadd-shaped kernel
// (3 pointer arguments and a length), 20000 launches per round, 11 interleaved rounds;
// prints the median host time per launch of each program, and checks the memory-op
// program orders the streams (a kernel that counts, run with a checked sum).
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s: %d\n", #x, r_); exit(1); } } while (0)
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
enum { ONE, ALT_NONE, ALT_EVENT, ALT_MEMOP, PROGRAMS };
static const char *names[PROGRAMS] = {"one stream", "alternating, unordered", "alternating + event", "alternating + write/wait value"};
int main(int argc, char **argv) {
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUmodule mod; CK(cuModuleLoad(&mod, argv[1])); CUfunction fn; CK(cuModuleGetFunction(&fn, mod, argv[2]));
  int n = 1024; CUdeviceptr a, b, c, flag; CK(cuMemAlloc(&a, 4 * n)); CK(cuMemAlloc(&b, 4 * n)); CK(cuMemAlloc(&c, 4 * n)); CK(cuMemAlloc(&flag, 4));
  CK(cuMemsetD32(a, 0, n)); CK(cuMemsetD32(b, 0, n)); CK(cuMemsetD32(flag, 0, 1));
  CUstream s[2]; CK(cuStreamCreate(&s[0], CU_STREAM_NON_BLOCKING)); CK(cuStreamCreate(&s[1], CU_STREAM_NON_BLOCKING));
  CUevent ev[2]; CK(cuEventCreate(&ev[0], CU_EVENT_DISABLE_TIMING)); CK(cuEventCreate(&ev[1], CU_EVENT_DISABLE_TIMING));
  void *params[4] = {&a, &b, &c, &n};
  const int launches = 20000, rounds = 11; double t[PROGRAMS][11];
  unsigned counter = 0;
  for (int round = 0; round < rounds; round++)
    for (int p = 0; p < PROGRAMS; p++) {
      CK(cuCtxSynchronize());
      double t0 = now_us();
      for (int i = 0; i < launches; i++) {
        int cur = p == ONE ? 0 : i & 1, prev = cur ^ 1;
        if (i > 0 && p == ALT_EVENT) CK(cuStreamWaitEvent(s[cur], ev[prev], 0));
        if (i > 0 && p == ALT_MEMOP) CK(cuStreamWaitValue32(s[cur], flag, counter, CU_STREAM_WAIT_VALUE_GEQ));
        CK(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, s[cur], params, 0));
        if (p == ALT_EVENT) CK(cuEventRecord(ev[cur], s[cur]));
        if (p == ALT_MEMOP) CK(cuStreamWriteValue32(s[cur], flag, ++counter, 0));
      }
      t[p][round] = (now_us() - t0) / launches;
      CK(cuCtxSynchronize());
    }
  printf("host us per launch, median of %d rounds of %d launches (ratio to one stream)\n", rounds, launches);
  double base = 0;
  for (int p = 0; p < PROGRAMS; p++) {
    qsort(t[p], rounds, sizeof(double), cmp); if (p == ONE) base = t[p][rounds / 2];
    printf("  %-36s %7.3f  %.3fx  (min %.3f)\n", names[p], t[p][rounds / 2], t[p][rounds / 2] / base, t[p][0]);
  }
  // Ordering check: c[i] = a[i] + b[i] with a <- c between launches is a chain only if ordered.
  float *host = malloc(4 * n); for (int i = 0; i < n; i++) host[i] = 1.0f;
  CK(cuMemcpyHtoD(a, host, 4 * n)); CK(cuMemcpyHtoD(b, host, 4 * n)); CK(cuMemsetD32(c, 0, n));
  void *chain[2][4] = {{&a, &b, &c, &n}, {&c, &b, &a, &n}};
  counter = 0; CK(cuMemsetD32(flag, 0, 1)); CK(cuCtxSynchronize());
  int steps = 2000;
  for (int i = 0; i < steps; i++) {
    int cur = i & 1;
    if (i > 0) CK(cuStreamWaitValue32(s[cur], flag, counter, CU_STREAM_WAIT_VALUE_GEQ));
    CK(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, s[cur], chain[cur], 0));
    CK(cuStreamWriteValue32(s[cur], flag, ++counter, 0));
  }
  CK(cuCtxSynchronize()); CK(cuMemcpyDtoH(host, (steps & 1) ? c : a, 4 * n));
  int bad = 0; for (int i = 0; i < n; i++) bad += host[i] != (float)(steps + 1);
  printf("ordering check (write/wait value, %d chained launches): %s (%d of %d elements wrong, want %d)\n", steps, bad ? "FAILED" : "ok", bad, n, steps + 1);
  return 0;
}
