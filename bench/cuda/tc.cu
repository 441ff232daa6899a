// The nvcc baseline of the tensor-core benchmark (issue 23): bf16, tf32, int8 and f64
// GEMMs (tc_gemm.cuh) and FlashAttention-2 forward (tc_attention.cuh), each checked
// against a CPU reference in f64 on sampled outputs (and every output checked written:
// the buffers start poisoned), then timed with CUDA events (warm-up, median).
//
// Built on the GPU machine by bench/run_tc.sh with `nvcc -O3 -std=c++17 -arch=sm_90`.
// Prints `RESULT <kernel>.nvcc <median_us> flops=<n>,reps=<n>` lines that
// bench/report_tc.py reads, and a human line with TFLOP/s and % of the H200's
// datasheet peak. Inputs are splitmix64 hashes of (seed, index), generated on the device
// and mirrored on the host for the reference; bench/tc.rs draws the same numbers.
//
//   tc_nvcc [kernel ...]   (no argument: all; `tune` times the candidate tilings)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "tc_attention.cuh"
#include "tc_common.cuh"
#include "tc_gemm.cuh"

// ---- the chosen tilings (bench/tc.rs uses the same); `tune` times the alternatives
using GemmBf16 = GemmConfig<MmaBf16, bf16, bf16, 128, 128, 64, 2, 2, 3>;
using GemmTf32 = GemmConfig<MmaTf32, float, float, 128, 128, 128, 2, 2, 3>;
using GemmInt8 = GemmConfig<MmaInt8, int8_t, int, 128, 128, 64, 2, 2, 4>;
using GemmF64 = GemmConfig<MmaF64, double, double, 128, 128, 128, 2, 4, 3>;
using AttnD64 = AttentionConfig<64, 4, 2, 128, true>;
using AttnD128 = AttentionConfig<128, 4, 2, 32, true>;
static const int kHeads = 128, kSeq = 4096;  // batch × heads, sequence

// Datasheet dense peaks of the H200 SXM (TFLOP/s or TOP/s), for the "% of peak" column.
static const double kPeakBf16 = 989.4, kPeakTf32 = 494.7, kPeakInt8 = 1978.9, kPeakF64 = 66.9;

static cudaStream_t g_stream;

// TC_ALLOC=pool takes the buffers from the device's stream-ordered pool with its release
// threshold at the top, as cudajit's DeviceArray does; otherwise cudaMalloc. Measures
// whether the allocator (where the buffers land), not the kernel, moves a timing.
static bool g_pool = false;
static void* device_alloc(size_t bytes) {
  void* p;
  if (g_pool) CHECK(cudaMallocAsync(&p, bytes, g_stream));
  else CHECK(cudaMalloc(&p, bytes));
  return p;
}
static void device_free(void* p) {
  if (g_pool) CHECK(cudaFreeAsync(p, g_stream));
  else CHECK(cudaFree(p));
}

template <class T>
static T* device_inputs(size_t n, uint64_t seed) {
  T* d = static_cast<T*>(device_alloc(n * sizeof(T)));
  fill<<<1024, 256, 0, g_stream>>>(d, n, seed);
  CHECK(cudaGetLastError());
  return d;
}
template <class T>
static T* poisoned(size_t n, int byte) {
  T* d = static_cast<T*>(device_alloc(n * sizeof(T)));
  CHECK(cudaMemsetAsync(d, byte, n * sizeof(T), g_stream));
  return d;
}
template <class T>
static std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaStreamSynchronize(g_stream));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Median µs of `reps` runs, each between its own events, after 3 untimed runs.
template <class Body>
static double time_us(int reps, Body body) {
  for (int i = 0; i < 3; i++) body();
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(g_stream));
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CHECK(cudaEventRecord(ev[2 * i], g_stream));
    body();
    CHECK(cudaEventRecord(ev[2 * i + 1], g_stream));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(g_stream));
  std::vector<double> us(reps);
  for (int i = 0; i < reps; i++) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us[i] = ms * 1e3;
  }
  for (auto& e : ev) CHECK(cudaEventDestroy(e));
  return median(us);
}

static bool g_failed = false;
static void report(const std::string& name, const char* impl, double us, double flops, int reps,
                   double peak, double error) {
  double tflops = flops / us * 1e-6;
  std::printf("RESULT %s.%s %.3f flops=%.0f,reps=%d,error=%.3g\n", name.c_str(), impl, us, flops,
              reps, error);
  std::printf("  %-22s %-6s %10.1f us %8.1f TFLOP/s %5.1f%% of peak\n", name.c_str(), impl, us,
              tflops, 100.0 * tflops / peak);
  std::fflush(stdout);
}
static void wrong(const std::string& name, const char* what, double error) {
  std::printf("WRONG %s: %s (error %.3g)\n", name.c_str(), what, error);
  std::fflush(stdout);
  g_failed = true;
}

// ---- GEMM: C = A·Bᵀ, checked on a 32×32 sample of rows × columns in f64, every
// element checked written (floats poisoned to NaN, int32 to a value |C| cannot reach).
template <class Cfg, class In, class Out>
static void run_gemm(const std::string& name, int n, double tolerance, double peak, int reps,
                     bool timed = true) {
  if (n % Cfg::kBM || n % Cfg::kBN || n % Cfg::kBK) {
    wrong(name, "size not a multiple of the tile", 0);
    return;
  }
  size_t elems = (size_t)n * n;
  In* A = device_inputs<In>(elems, 11);
  In* B = device_inputs<In>(elems, 22);
  bool integer = std::is_same<Out, int>::value;
  Out* C = poisoned<Out>(elems, integer ? 0x80 : 0xff);
  Cfg::launch(A, B, C, n, n, n, g_stream);
  CHECK(cudaGetLastError());
  std::vector<Out> got = to_host(C, elems);
  size_t unwritten = 0;
  for (Out v : got) {
    double x = as_double(v);
    if (integer ? v == (Out)0x80808080 : !std::isfinite(x)) unwritten++;
  }
  double diff2 = 0, ref2 = 0;
  std::vector<double> arow(n), brow(n);
  for (int si = 0; si < 32; si++) {
    int i = (int)(mix(5, si) % n);
    for (int k = 0; k < n; k++) arow[k] = as_double(input_value<In>(11, (size_t)i * n + k));
    for (int sj = 0; sj < 32; sj++) {
      int j = (int)(mix(6, sj) % n);
      double ref = 0;
      for (int k = 0; k < n; k++) ref += arow[k] * as_double(input_value<In>(22, (size_t)j * n + k));
      double d = as_double(got[(size_t)i * n + j]) - ref;
      diff2 += d * d;
      ref2 += ref * ref;
    }
  }
  double error = std::sqrt(diff2 / ref2);
  if (unwritten) wrong(name, "outputs left unwritten", (double)unwritten);
  else if (!(error <= tolerance)) wrong(name, "sampled outputs differ from the f64 reference", error);
  else if (timed) {
    double us = time_us(reps, [&] { Cfg::launch(A, B, C, n, n, n, g_stream); });
    report(name, "nvcc", us, 2.0 * n * (double)n * n, reps, peak, error);
  }
  std::printf("  %s buffers (%s): A %p B %p C %p\n", name.c_str(), g_pool ? "pool" : "malloc",
              (void*)A, (void*)B, (void*)C);
  device_free(A);
  device_free(B);
  device_free(C);
}

// ---- attention: O = softmax(Q·Kᵀ/√D)·V per head, checked on 4 rows of each of 4 heads
// in f64, every element checked written (poisoned to NaN).
template <class Cfg, int D>
static void run_attention(const std::string& name, int reps) {
  size_t elems = (size_t)kHeads * kSeq * D;
  bf16* Q = device_inputs<bf16>(elems, 33);
  bf16* K = device_inputs<bf16>(elems, 44);
  bf16* V = device_inputs<bf16>(elems, 55);
  bf16* O = poisoned<bf16>(elems, 0xff);
  Cfg::launch(Q, K, V, O, kHeads, kSeq, g_stream);
  CHECK(cudaGetLastError());
  std::vector<bf16> got = to_host(O, elems);
  size_t unwritten = 0;
  for (bf16 v : got) unwritten += !std::isfinite(as_double(v));
  double diff2 = 0, ref2 = 0;
  std::vector<double> scores(kSeq);
  for (int sh = 0; sh < 4; sh++) {
    size_t head = (size_t)(mix(7, sh) % kHeads) * kSeq * D;
    for (int sr = 0; sr < 4; sr++) {
      size_t row = mix(8, sh * 4 + sr) % kSeq;
      double top = -INFINITY, total = 0;
      for (int j = 0; j < kSeq; j++) {
        double dot = 0;
        for (int d = 0; d < D; d++)
          dot += as_double(input_value<bf16>(33, head + row * D + d)) *
                 as_double(input_value<bf16>(44, head + (size_t)j * D + d));
        scores[j] = dot / std::sqrt((double)D);
        top = std::max(top, scores[j]);
      }
      for (int j = 0; j < kSeq; j++) total += (scores[j] = std::exp(scores[j] - top));
      for (int d = 0; d < D; d++) {
        double ref = 0;
        for (int j = 0; j < kSeq; j++)
          ref += scores[j] * as_double(input_value<bf16>(55, head + (size_t)j * D + d));
        ref /= total;
        double diff = as_double(got[head + row * D + d]) - ref;
        diff2 += diff * diff;
        ref2 += ref * ref;
      }
    }
  }
  double error = std::sqrt(diff2 / ref2);
  if (unwritten) wrong(name, "outputs left unwritten", (double)unwritten);
  else if (!(error <= 2e-2)) wrong(name, "sampled rows differ from the f64 reference", error);
  else {
    double us = time_us(reps, [&] { Cfg::launch(Q, K, V, O, kHeads, kSeq, g_stream); });
    report(name, "nvcc", us, 4.0 * kHeads * (double)kSeq * kSeq * D, reps, kPeakBf16, error);
  }
  for (bf16* p : {Q, K, V, O}) device_free(p);
}

// Candidate tilings, each checked and timed (bench notes: which won and by how much).
// The candidates measured last (bench/cuda/TUNING.md has every round).
static void tune() {
  using B = bf16;
  run_gemm<GemmConfig<MmaBf16, B, B, 128, 128, 128, 2, 2, 2>, B, B>("tune_bf16_128x128x64_s2_w4", 8192, 1e-2, kPeakBf16, 10);
  run_gemm<GemmConfig<MmaBf16, B, B, 128, 128, 64, 2, 2, 3>, B, B>("tune_bf16_128x128x32_s3_w4", 8192, 1e-2, kPeakBf16, 10);
  run_attention<AttentionConfig<128, 4, 2, 64, true>, 128>("tune_attn_d128_w4_m2_kv64_fastexp", 20);
  run_attention<AttentionConfig<128, 4, 2, 32, false>, 128>("tune_attn_d128_w4_m2_kv32_exp2f", 20);
}

int main(int argc, char** argv) {
  CHECK(cudaStreamCreate(&g_stream));
  const char* alloc = std::getenv("TC_ALLOC");
  if (alloc && std::string(alloc) == "pool") {
    g_pool = true;
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t keep_all = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  }
  std::vector<std::string> only(argv + 1, argv + argc);
  auto wanted = [&](const char* name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  if (wanted("gemm_bf16_4096"))
    run_gemm<GemmBf16, bf16, bf16>("gemm_bf16_4096", 4096, 1e-2, kPeakBf16, 30);
  if (wanted("gemm_bf16_8192"))
    run_gemm<GemmBf16, bf16, bf16>("gemm_bf16_8192", 8192, 1e-2, kPeakBf16, 20);
  if (wanted("gemm_tf32_8192"))
    run_gemm<GemmTf32, float, float>("gemm_tf32_8192", 8192, 5e-3, kPeakTf32, 10);
  if (wanted("gemm_int8_8192"))
    run_gemm<GemmInt8, int8_t, int>("gemm_int8_8192", 8192, 0.0, kPeakInt8, 20);
  if (wanted("dgemm_f64_4096"))
    run_gemm<GemmF64, double, double>("dgemm_f64_4096", 4096, 1e-12, kPeakF64, 10);
  if (wanted("attention_d64")) run_attention<AttnD64, 64>("attention_d64", 20);
  if (wanted("attention_d128")) run_attention<AttnD128, 128>("attention_d128", 20);
  if (!only.empty() && only[0] == "tune") tune();
  return g_failed ? 1 : 0;
}
