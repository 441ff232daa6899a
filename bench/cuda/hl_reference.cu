// CUB references for the high-level operations (issue 12), on the same 2^28 inputs as
// bench/hl.rs: cub::DeviceScan::InclusiveSum of u32 (the scan bar is "within 1.10x of
// CUB's DeviceScan"), cub::DeviceReduce::Sum of f32 (result left on the device), and
// cudaMemcpy device to device (the copy bandwidth). Temporary storage is allocated once,
// outside the timed calls, as cudajit keeps its tile states between calls. Median of 20
// event-timed calls after 3 warm-ups. Prints `RESULT <name> <us> bytes=<n>,GBps=<g>`.
//
//   nvcc -O3 -arch=sm_90 -o hl_reference bench/cuda/hl_reference.cu && ./hl_reference
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorString(e_));                                          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

static const size_t N = size_t(1) << 28;
static const int REPS = 20;

template <class F>
static double median_us(cudaStream_t s, F body) {
  for (int i = 0; i < 3; ++i) body();
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < REPS; ++i) {
    CHECK(cudaEventRecord(a, s));
    body();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[REPS / 2];
}

static void report(const char* name, double us, double bytes) {
  std::printf("RESULT %s %.3f bytes=%.0f,GBps=%.0f\n", name, us, bytes, bytes / (us * 1e-6) / 1e9);
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::vector<uint32_t> hu(N);
  std::vector<float> hx(N);
  for (size_t i = 0; i < N; ++i) {
    hu[i] = uint32_t(i % 5);
    hx[i] = float(int64_t(i * 7919 % 17) - 8);
  }
  uint32_t *u, *scan;
  float *x, *sum, *copy;
  CHECK(cudaMalloc(&u, N * 4));
  CHECK(cudaMalloc(&scan, N * 4));
  CHECK(cudaMalloc(&x, N * 4));
  CHECK(cudaMalloc(&copy, N * 4));
  CHECK(cudaMalloc(&sum, 4));
  CHECK(cudaMemcpy(u, hu.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(x, hx.data(), N * 4, cudaMemcpyHostToDevice));

  double us = median_us(s, [&] { CHECK(cudaMemcpyAsync(copy, x, N * 4, cudaMemcpyDeviceToDevice, s)); });
  report("copy.cuda", us, 8.0 * N);

  size_t scan_bytes = 0, sum_bytes = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, u, scan, int(N), s));
  CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, x, sum, int(N), s));
  void *scan_tmp, *sum_tmp;
  CHECK(cudaMalloc(&scan_tmp, scan_bytes));
  CHECK(cudaMalloc(&sum_tmp, sum_bytes));

  us = median_us(s, [&] { CHECK(cub::DeviceScan::InclusiveSum(scan_tmp, scan_bytes, u, scan, int(N), s)); });
  std::vector<uint32_t> got(N);
  CHECK(cudaMemcpy(got.data(), scan, N * 4, cudaMemcpyDeviceToHost));
  uint32_t run = 0;
  for (size_t i = 0; i < N; ++i) {
    run += hu[i];
    if (got[i] != run) {
      std::fprintf(stderr, "cub scan: element %zu is %u, want %u\n", i, got[i], run);
      return 1;
    }
  }
  report("scan.cub", us, 8.0 * N);

  us = median_us(s, [&] { CHECK(cub::DeviceReduce::Sum(sum_tmp, sum_bytes, x, sum, int(N), s)); });
  float total = 0;
  CHECK(cudaMemcpy(&total, sum, 4, cudaMemcpyDeviceToHost));
  double want = 0;
  for (size_t i = 0; i < N; ++i) want += hx[i];
  if (std::abs(double(total) - want) > 64.0) {
    std::fprintf(stderr, "cub sum: %f, want %f\n", double(total), want);
    return 1;
  }
  report("sum.cub", us, 4.0 * N);
  return 0;
}
