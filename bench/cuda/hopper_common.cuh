// What the Hopper nvcc twins share (bench/cuda/hopper_gemm.cu, hopper_fp8.cu,
// hopper_attention.cu), beyond tc_common.cuh's error check, benchmark inputs and median:
// the sm_90a PTX wrappers (mbarriers, TMA, wgmma fences and groups, setmaxnreg), the
// inputs as f32/f64, and the 2-D bf16 tensor map as cudajit's `TensorMap::with_strides`
// builds it (128B swizzle, L2 promotion 256 B). cuTensorMapEncodeTiled comes through
// cudaGetDriverEntryPointByVersion (no -lcuda).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

// CHECK, bf16, the inputs' mix and fill, median: shared with the mma.sync twins.
#include "tc_common.cuh"


// ---- PTX wrappers (sm_90a)
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}" ::"r"(
                   smem_addr(bar))
               : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile(
      "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}" ::"r"(
          smem_addr(bar)),
      "r"(bytes)
      : "memory");
}
// The box of `map` at (row, inner) (elements; PTX takes the innermost first) into the
// shared tile, its bytes completing on `bar`.
__device__ __forceinline__ void tma_load_2d(void* tile, const CUtensorMap* map, int row,
                                            int inner, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(tile)),
      "l"(map), "r"(inner), "r"(row), "r"(smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void tma_prefetch(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}

// ---- inputs: the same numbers as bench/cuda/tc.cu and the Rust harnesses
// (`mix`, `input_value` and `fill` are tc_common.cuh's).
__host__ __device__ inline float input_f32(uint64_t seed, uint64_t i) {
  return input_value<float>(seed, i);
}
static double input_f64(uint64_t seed, uint64_t i) {
  return (double)__bfloat162float(__float2bfloat16_rn(input_f32(seed, i)));
}

// A 2-D map of the rows × cols row-major bf16 matrix `p` with boxes of `box_rows` × 64
// elements, 128B-swizzled (TensorMap::with_strides, B128 swizzle, L2 promotion 256 B,
// zero fill).
static CUtensorMap tensor_map(const bf16* p, uint64_t rows, uint64_t cols, uint32_t box_rows) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void**)&encode, 12000,
                                           cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
      std::exit(1);
    }
  }
  CUtensorMap map;
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};  // innermost first
  cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(bf16)};
  cuuint32_t box[2] = {64, box_rows};
  cuuint32_t element_strides[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void*)p, dims, strides, box,
                      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", (int)r);
    std::exit(1);
  }
  return map;
}
