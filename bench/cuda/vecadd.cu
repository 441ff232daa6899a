// The nvcc baseline for bench/vecadd_launch.rs: the same vecadd, timed the same way.
//
// Built on the GPU machine by bench/run.sh with `nvcc -O3 -arch=sm_90`. Prints
// `RESULT <name> <median_us> <key=value,...>` lines that bench/report.py reads.
// `nvcc -ptx` of this file also gives the Rust bench an in-process nvcc control
// (`vecadd`) and a stand-in for cudajit's PTX with the same parameter list
// (`vecadd_abi`), so both sides launch identical signatures.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

// Exit on any CUDA error: a benchmark that keeps going after one reports nonsense.
#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

static const int kN = 1 << 24;        // elements
static const int kBlock = 256;        // threads per block
static const int kWarmup = 20;
static const int kTimed = 300;        // >= 200 launches, each between its own events
static const int kTinyN = 1024;       // launch-overhead arrays
static const int kLaunches = 20000;   // back-to-back launches per repetition
static const int kReps = 11;          // repetitions; the median is reported

// The kernel as a CUDA programmer writes it.
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// The same kernel with cudajit's parameter ABI (each slice = pointer + i64 length,
// usize index), only for the Rust bench's raw-cudarc launches when cudajit's own PTX
// is not at hand. Not timed here.
extern "C" __global__ void vecadd_abi(const float* a, long long na, const float* b,
                                      long long nb, float* c, long long nc) {
  unsigned long long i =
      (unsigned long long)threadIdx.x + (unsigned long long)blockIdx.x * blockDim.x;
  if (i < (unsigned long long)nc) c[i] = a[i] + b[i];
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// xorshift64*: the same cheap generator the Rust bench uses; values in [-1, 1).
static std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::vector<float> out(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    uint64_t r = s * 0x2545F4914F6CDD1DULL;
    out[i] = (float)((double)(r >> 40) / (double)(1ULL << 24) * 2.0 - 1.0);
  }
  return out;
}

int main() {
  int dev = 0;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device\n");
    return 0;
  }
  CHECK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  int runtime = 0, driver = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  std::printf("nvcc bench: %s (sm_%d%d), runtime %d, driver API %d\n", prop.name,
              prop.major, prop.minor, runtime, driver);

  cudaStream_t stream;
  // A blocking stream, as cudajit's `Device::new_stream` makes (cudaStreamCreate semantics).
  CHECK(cudaStreamCreate(&stream));

  // ---- kernel time: 2^24 elements, 256-thread blocks, events around each launch
  std::vector<float> ha = random_floats(kN, 1), hb = random_floats(kN, 2);
  float *a, *b, *c;
  size_t bytes = (size_t)kN * sizeof(float);
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(c, 0xff, bytes));  // NaN poison: every element must be written
  int blocks = (kN + kBlock - 1) / kBlock;

  vecadd<<<blocks, kBlock, 0, stream>>>(a, b, c, kN);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  std::vector<float> hc(kN);
  CHECK(cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; i++) {
    if (hc[i] != ha[i] + hb[i]) {
      std::fprintf(stderr, "vecadd wrong at %d: %g != %g\n", i, hc[i], ha[i] + hb[i]);
      return 1;
    }
  }

  for (int i = 0; i < kWarmup; i++) vecadd<<<blocks, kBlock, 0, stream>>>(a, b, c, kN);
  CHECK(cudaGetLastError());
  std::vector<cudaEvent_t> start(kTimed), stop(kTimed);
  for (int i = 0; i < kTimed; i++) {
    CHECK(cudaEventCreate(&start[i]));
    CHECK(cudaEventCreate(&stop[i]));
  }
  for (int i = 0; i < kTimed; i++) {
    CHECK(cudaEventRecord(start[i], stream));
    vecadd<<<blocks, kBlock, 0, stream>>>(a, b, c, kN);
    CHECK(cudaEventRecord(stop[i], stream));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us(kTimed);
  for (int i = 0; i < kTimed; i++) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
    us[i] = ms * 1e3;
    CHECK(cudaEventDestroy(start[i]));
    CHECK(cudaEventDestroy(stop[i]));
  }
  double med = median(us);
  double gbps = 12.0 * kN / (med * 1e-6) / 1e9;  // 2 reads + 1 write of 4 bytes
  std::printf("RESULT kernel_nvcc %.3f gbps=%.1f,min_us=%.3f,n=%d,block=%d,reps=%d\n", med,
              gbps, *std::min_element(us.begin(), us.end()), kN, kBlock, kTimed);

  // ---- launch overhead: back-to-back launches on small arrays, host time per launch
  float *ta, *tb, *tc;
  CHECK(cudaMalloc(&ta, kTinyN * sizeof(float)));
  CHECK(cudaMalloc(&tb, kTinyN * sizeof(float)));
  CHECK(cudaMalloc(&tc, kTinyN * sizeof(float)));
  CHECK(cudaMemcpy(ta, ha.data(), kTinyN * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(tb, hb.data(), kTinyN * sizeof(float), cudaMemcpyHostToDevice));
  int tiny_blocks = kTinyN / kBlock;
  for (int i = 0; i < 1000; i++) vecadd<<<tiny_blocks, kBlock, 0, stream>>>(ta, tb, tc, kTinyN);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> per(kReps);
  for (int r = 0; r < kReps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kLaunches; i++)
      vecadd<<<tiny_blocks, kBlock, 0, stream>>>(ta, tb, tc, kTinyN);
    CHECK(cudaStreamSynchronize(stream));
    auto t1 = std::chrono::steady_clock::now();
    per[r] = std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches;
  }
  CHECK(cudaGetLastError());
  std::printf("RESULT launch_cuda_runtime %.3f min_us=%.3f,launches=%d,reps=%d,n=%d\n",
              median(per), *std::min_element(per.begin(), per.end()), kLaunches, kReps,
              kTinyN);

  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(ta));
  CHECK(cudaFree(tb));
  CHECK(cudaFree(tc));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
