// What the nvcc side of the tensor-core benchmark shares between its programs (tc.cu,
// tc_same_buffers.cu, and through hopper_common.cuh the Hopper twins): the CHECK macro, the inputs (splitmix64 of (seed, index), the
// numbers bench/tc.rs draws on the host) and the median.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

using bf16 = __nv_bfloat16;

// ---- inputs: the same numbers on device and host
__host__ __device__ inline uint64_t mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + i;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// Uniform in [-1, 1): 24 random bits (f32 and bf16) or 53 (f64); int8 the top byte.
template <class T>
__host__ __device__ inline T input_value(uint64_t seed, uint64_t i);
template <>
__host__ __device__ inline float input_value<float>(uint64_t seed, uint64_t i) {
  return (float)(mix(seed, i) >> 40) * (1.0f / 8388608.0f) - 1.0f;
}
template <>
__host__ __device__ inline bf16 input_value<bf16>(uint64_t seed, uint64_t i) {
  return __float2bfloat16_rn(input_value<float>(seed, i));
}
template <>
__host__ __device__ inline double input_value<double>(uint64_t seed, uint64_t i) {
  return (double)(mix(seed, i) >> 11) * (1.0 / 4503599627370496.0) - 1.0;
}
template <>
__host__ __device__ inline int8_t input_value<int8_t>(uint64_t seed, uint64_t i) {
  return (int8_t)(mix(seed, i) >> 56);
}
static double as_double(float v) { return v; }
static double as_double(double v) { return v; }
static double as_double(bf16 v) { return __bfloat162float(v); }
static double as_double(int8_t v) { return v; }
static double as_double(int v) { return v; }

template <class T>
__global__ void fill(T* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = input_value<T>(seed, i);
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
