// Issue 27 probe: what the first cuModuleLoadDataEx of a process costs, load by load.
// jitprobe [--predl] [--bgwarm MS] [--opt N] [--lineinfo] FILE.ptx...
// Each FILE is loaded in order (made distinct by a trailing comment); prints per load:
// wall ms, the JIT's own wall ms, whether libnvidia-ptxjitcompiler is mapped.
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r"); char line[4096]; int found = 0;
  while (f && fgets(line, sizeof line, f)) if (strstr(line, "ptxjitcompiler")) { found = 1; break; }
  if (f) fclose(f); return found;
}
static char *slurp(const char *path, int salt) {
  FILE *f = fopen(path, "rb"); if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char *b = malloc(n + 64); fread(b, 1, n, f); fclose(f);
  sprintf(b + n, "\n// salt %d %ld\n", salt, (long)now_ms()); return b;
}
static int opt_level = -1, line_info = 0;
static double load(const char *ptx, float *jit_ms, CUmodule *m) {
  CUjit_option o[4]; void *v[4]; int k = 0;
  o[k] = CU_JIT_WALL_TIME; v[k++] = 0;
  if (opt_level >= 0) { o[k] = CU_JIT_OPTIMIZATION_LEVEL; v[k++] = (void *)(size_t)opt_level; }
  if (line_info) { o[k] = CU_JIT_GENERATE_LINE_INFO; v[k++] = (void *)(size_t)1; }
  double t = now_ms();
  CUresult r = cuModuleLoadDataEx(m, ptx, k, o, v);
  double dt = now_ms() - t;
  if (r != CUDA_SUCCESS) { fprintf(stderr, "load failed %d\n", r); exit(3); }
  union { void *p; float f; } u; u.p = v[0]; *jit_ms = u.f; return dt;
}
static void *predl(void *arg) {
  double t = now_ms(); void *h = dlopen("libnvidia-ptxjitcompiler.so.1", RTLD_NOW | RTLD_GLOBAL);
  printf("predl dlopen %.2f ms handle=%p\n", now_ms() - t, h); return 0;
}
static CUcontext ctx; static const char *warm_ptx;
static const char *same_ptx; static volatile int go = 0; static const char *same_name;
static void *bgsame(void *arg) {  // warm-up, then the first kernel, on one thread
  cuCtxSetCurrent(ctx); float j; CUmodule m; double w = load(warm_ptx, &j, &m);
  printf("bgsame warm load %.2f ms jit %.2f\n", w, j);
  while (!go) {}
  w = load(same_ptx, &j, &m);
  printf("load %-16s %7.2f ms  jit %7.2f ms  (bgsame thread)\n", same_name, w, j); return 0;
}
static void link_once(const char *ptx, const char *name) {
  CUlinkState st; void *cubin; size_t size; float wall = 0;
  CUjit_option o[1] = {CU_JIT_WALL_TIME}; void *v[1] = {0};
  double t0 = now_ms(); CUresult r = cuLinkCreate(1, o, v, &st);
  double t1 = now_ms(); if (!r) r = cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, name, 0, 0, 0);
  double t2 = now_ms(); if (!r) r = cuLinkComplete(st, &cubin, &size);
  double t3 = now_ms(); CUmodule m; if (!r) r = cuModuleLoadData(&m, cubin);
  double t4 = now_ms(); cuLinkDestroy(st);
  printf("link %-16s rc %d create %.2f add %.2f complete %.2f load_cubin %.2f ms (cubin %zu B)\n", name, r, t1 - t0, t2 - t1, t3 - t2, t4 - t3, size);
}
static void *bgwarm(void *arg) {
  cuCtxSetCurrent(ctx); float j; CUmodule m; double w = load(warm_ptx, &j, &m);
  printf("bgwarm load %.2f ms jit %.2f\n", w, j); return 0;
}
int main(int argc, char **argv) {
  int i = 1, do_predl = 0, do_link = 0; double bg_ms = -1, same_ms = -1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--predl")) do_predl = 1;
    else if (!strcmp(argv[i], "--bgwarm")) bg_ms = atof(argv[++i]);
    else if (!strcmp(argv[i], "--opt")) opt_level = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lineinfo")) line_info = 1;
    else if (!strcmp(argv[i], "--bgsame")) same_ms = atof(argv[++i]);
    else if (!strcmp(argv[i], "--link")) do_link = 1;
  }
  double t0 = now_ms();
  cuInit(0); CUdevice dev; cuDeviceGet(&dev, 0);
  double t1 = now_ms();
  pthread_t th; if (do_predl) pthread_create(&th, 0, predl, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
  double t2 = now_ms();
  if (do_predl) pthread_join(th, 0);
  printf("init %.2f ms, ctx %.2f ms, predl joined +%.2f ms, jit lib mapped: %d\n", t1 - t0, t2 - t1, now_ms() - t2, mapped());
  if (bg_ms >= 0) {
    warm_ptx = slurp("w.ptx", 999);
    double t = now_ms(); pthread_create(&th, 0, bgwarm, 0);
    while (now_ms() - t < bg_ms) {}  // the calling thread's libnvvm compile, simulated
    pthread_join(th, 0); printf("bgwarm joined after %.2f ms (busy %.1f)\n", now_ms() - t, bg_ms);
  }
  if (do_link) { for (int f = i; f < argc; f++) link_once(slurp(argv[f], f), argv[f]); return 0; }
  if (same_ms >= 0 && i < argc) {
    warm_ptx = slurp("w.ptx", 998); same_ptx = slurp(argv[i], i); same_name = argv[i];
    double t = now_ms(); pthread_create(&th, 0, bgsame, 0);
    while (now_ms() - t < same_ms) {}
    go = 1; pthread_join(th, 0); printf("bgsame joined after %.2f ms (busy %.1f)\n", now_ms() - t, same_ms); i++;
  }
  for (int f = i; f < argc; f++) {
    char *ptx = slurp(argv[f], f); float jit; CUmodule m;
    double w = load(ptx, &jit, &m);
    printf("load %-16s %7.2f ms  jit %7.2f ms  mapped %d\n", argv[f], w, jit, mapped());
  }
  return 0;
}
