// The tensor-core GEMM kernels of the nvcc baseline (issue 23): one multi-stage
// cp.async pipeline over XOR-swizzled shared tiles, warp tiles of mma.sync, for bf16
// (m16n8k16), tf32 (m16n8k8), int8 (m16n8k32, i32 accumulate) and f64 (m8n8k4 DMMA).
// bench/tc.rs ports the same tiling to cudajit; keep the two token-for-token alike.
//
// Layout ("TN", cuBLAS's favourite): A is M×K row-major, B is N×K row-major, C = A·Bᵀ
// is M×N row-major. Both operands then read K-contiguous rows, so every fragment of
// the 16-bit, 32-bit and 8-bit kinds is an 8-row × 16-byte ldmatrix matrix and the
// shared tiles are element-agnostic byte tiles. Sizes must be multiples of the tiles
// (the harness asserts it): these kernels measure the tensor-core path, not edges.
#pragma once
#include <cuda_bf16.h>
#include <cstdint>

// ---- PTX wrappers (CUDA C++ has no intrinsic for these)
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void* dst_shared, const void* src_global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst_shared)),
               "l"(src_global));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

// The physical 16-byte chunk of logical chunk `c` in row `r` of a tile whose rows hold
// `Chunks` chunks: the 8 rows one ldmatrix phase reads land in 8 different 16-byte
// bank groups (rows of 64 bytes pair up into one 128-byte line, hence the shift).
template <int Chunks>
__device__ __forceinline__ int swizzle(int r, int c) {
  static_assert(Chunks == 2 || Chunks == 4 || Chunks >= 8, "unsupported row width");
  if constexpr (Chunks >= 8) return c ^ (r & 7);
  else if constexpr (Chunks == 4) return c ^ ((r >> 1) & 3);
  else return c ^ ((r >> 2) & 1);
}

// ---- the MMA kinds. Each: the warp's work on one shared stage (k-steps of
// kStepBytes), and the epilogue's store of one accumulator tile.
// Fragment ownership (PTX ISA, "Matrix Fragments for mma.m16n8k*"): lane = 4g + t;
// accumulator c0,c1 at (row g, cols 2t, 2t+1), c2,c3 at (row g+8, same cols).
template <class In, class AccT, class Out>
struct Mma16x8 {
  using Acc = AccT;
  static constexpr int kTileM = 16, kTileN = 8, kAcc = 4, kStepBytes = 32;
  __device__ static void mma(Acc (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);

  // One shared stage: A rows [wrow, wrow + MT*16), B rows [wcol, wcol + NT*8).
  template <int MT, int NT, int BKB>
  __device__ static void stage(Acc (&acc)[MT][NT][4], const char* As, const char* Bs, int wrow,
                               int wcol, int lane) {
    constexpr int kChunks = BKB / 16;
#pragma unroll
    for (int ks = 0; ks < BKB / kStepBytes; ks++) {
      uint32_t a[MT][4], b[NT][2];
      // Tiles of one warp are 16 rows apart, so the swizzle (a function of the row mod
      // 8) is computed once per k-step and each tile adds a constant.
      // A matrices: rows 0-7 / 8-15 × chunk 0 / 1 of this k-step, in a0..a3 order.
      const int a_row = wrow + (lane & 15);
      const char* a_ptr = As + a_row * BKB + swizzle<kChunks>(a_row, ks * 2 + (lane >> 4)) * 16;
      // B matrices: n-tile 2np chunk 0, chunk 1, n-tile 2np+1 chunk 0, chunk 1.
      const int b_row = wcol + ((lane >> 4) << 3) + (lane & 7);
      const char* b_ptr =
          Bs + b_row * BKB + swizzle<kChunks>(b_row, ks * 2 + ((lane >> 3) & 1)) * 16;
#pragma unroll
      for (int mt = 0; mt < MT; mt++) ldmatrix_x4(a[mt], a_ptr + mt * 16 * BKB);
#pragma unroll
      for (int np = 0; np < NT / 2; np++) {
        uint32_t r[4];
        ldmatrix_x4(r, b_ptr + np * 16 * BKB);
        b[2 * np][0] = r[0];
        b[2 * np][1] = r[1];
        b[2 * np + 1][0] = r[2];
        b[2 * np + 1][1] = r[3];
      }
#pragma unroll
      for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++) mma(acc[mt][nt], a[mt], b[nt][0], b[nt][1]);
    }
  }

  __device__ static void store(Out* C, long long ldc, int row, int col, const Acc (&c)[4]);
};

template <>
__device__ __forceinline__ void Mma16x8<__nv_bfloat16, float, __nv_bfloat16>::mma(
    float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void Mma16x8<float, float, float>::mma(float (&d)[4],
                                                                 const uint32_t (&a)[4],
                                                                 uint32_t b0, uint32_t b1) {
  // f32 bits as tf32 operands: the tensor core reads the top 19 bits (truncation).
  asm(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void Mma16x8<int8_t, int, int>::mma(int (&d)[4], const uint32_t (&a)[4],
                                                               uint32_t b0, uint32_t b1) {
  asm(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void Mma16x8<__nv_bfloat16, float, __nv_bfloat16>::store(
    __nv_bfloat16* C, long long ldc, int row, int col, const float (&c)[4]) {
  *reinterpret_cast<__nv_bfloat162*>(C + row * ldc + col) = __floats2bfloat162_rn(c[0], c[1]);
  *reinterpret_cast<__nv_bfloat162*>(C + (row + 8) * ldc + col) =
      __floats2bfloat162_rn(c[2], c[3]);
}
template <>
__device__ __forceinline__ void Mma16x8<float, float, float>::store(float* C, long long ldc,
                                                                   int row, int col,
                                                                   const float (&c)[4]) {
  *reinterpret_cast<float2*>(C + row * ldc + col) = make_float2(c[0], c[1]);
  *reinterpret_cast<float2*>(C + (row + 8) * ldc + col) = make_float2(c[2], c[3]);
}
template <>
__device__ __forceinline__ void Mma16x8<int8_t, int, int>::store(int* C, long long ldc, int row,
                                                                 int col, const int (&c)[4]) {
  *reinterpret_cast<int2*>(C + row * ldc + col) = make_int2(c[0], c[1]);
  *reinterpret_cast<int2*>(C + (row + 8) * ldc + col) = make_int2(c[2], c[3]);
}

using MmaBf16 = Mma16x8<__nv_bfloat16, float, __nv_bfloat16>;
using MmaTf32 = Mma16x8<float, float, float>;
using MmaInt8 = Mma16x8<int8_t, int, int>;

// m8n8k4 f64 (DMMA): no ldmatrix for 64-bit elements, so each lane reads its own
// element: a = A(row g, k t), b = B(n g, k t); accumulator c0,c1 at (g, 2t), (g, 2t+1).
struct MmaF64 {
  using Acc = double;
  static constexpr int kTileM = 8, kTileN = 8, kAcc = 2, kStepBytes = 32;
  template <int MT, int NT, int BKB>
  __device__ static void stage(double (&acc)[MT][NT][2], const char* As, const char* Bs,
                               int wrow, int wcol, int lane) {
    constexpr int kChunks = BKB / 16;
    int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int ks = 0; ks < BKB / kStepBytes; ks++) {
      double a[MT], b[NT];
      int chunk = ks * 2 + (t >> 1), within = (t & 1) * 8;
#pragma unroll
      for (int mt = 0; mt < MT; mt++) {
        int row = wrow + mt * 8 + g;
        a[mt] = *reinterpret_cast<const double*>(As + row * BKB +
                                                 swizzle<kChunks>(row, chunk) * 16 + within);
      }
#pragma unroll
      for (int nt = 0; nt < NT; nt++) {
        int row = wcol + nt * 8 + g;
        b[nt] = *reinterpret_cast<const double*>(Bs + row * BKB +
                                                 swizzle<kChunks>(row, chunk) * 16 + within);
      }
#pragma unroll
      for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
          asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, "
                       "{%0,%1};\n"
                       : "+d"(acc[mt][nt][0]), "+d"(acc[mt][nt][1])
                       : "d"(a[mt]), "d"(b[nt]));
    }
  }
  __device__ static void store(double* C, long long ldc, int row, int col, const double (&c)[2]) {
    *reinterpret_cast<double2*>(C + row * ldc + col) = make_double2(c[0], c[1]);
  }
};

// ---- the kernel: BM×BN block tile, BKB bytes of K per stage, WARPS_M×WARPS_N warps,
// STAGES-deep cp.async pipeline, one __syncthreads per stage.
template <class Op, class In, class Out, int BM, int BN, int BKB, int WARPS_M, int WARPS_N,
          int STAGES>
__global__ void __launch_bounds__(WARPS_M* WARPS_N * 32)
    tc_gemm(const In* __restrict__ A, const In* __restrict__ B, Out* __restrict__ C, int M, int N,
            int K) {
  constexpr int kThreads = WARPS_M * WARPS_N * 32;
  constexpr int kChunks = BKB / 16;
  constexpr int kWarpM = BM / WARPS_M, kWarpN = BN / WARPS_N;
  constexpr int MT = kWarpM / Op::kTileM, NT = kWarpN / Op::kTileN;
  constexpr int kStageBytes = (BM + BN) * BKB;
  static_assert(BM % (kThreads / kChunks) == 0 && BN % (kThreads / kChunks) == 0, "loader");
  extern __shared__ __align__(128) char smem[];

  // Grouped raster: 8 block rows share each B panel while it is in L2.
  const int tiles_m = M / BM, tiles_n = N / BN, group = 8;
  const int pid = blockIdx.x, per_group = group * tiles_n;
  const int first_m = (pid / per_group) * group;
  const int rows_here = min(tiles_m - first_m, group);
  const int tile_m = first_m + (pid % per_group) % rows_here;
  const int tile_n = (pid % per_group) / rows_here;

  const long long row_bytes = (long long)K * sizeof(In);
  const char* Ag = reinterpret_cast<const char*>(A) + (long long)tile_m * BM * row_bytes;
  const char* Bg = reinterpret_cast<const char*>(B) + (long long)tile_n * BN * row_bytes;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wrow = (warp / WARPS_N) * kWarpM, wcol = (warp % WARPS_N) * kWarpN;
  const int k_tiles = (int)(row_bytes / BKB);

  // Each thread copies fixed chunks: a fixed trip count (so the loop unrolls), and rows
  // kThreads/kChunks apart share the swizzle, so one offset per operand and thread.
  static_assert((kThreads / kChunks) % 8 == 0, "rows a thread copies must share the swizzle");
  const int load_row = tid / kChunks, load_chunk = tid % kChunks;
  const int load_dst = load_row * BKB + swizzle<kChunks>(load_row, load_chunk) * 16;
  const long long load_src = load_row * row_bytes + load_chunk * 16;
  constexpr int kRowsPerPass = kThreads / kChunks;
  auto load_stage = [&](int stage, int kt) {
    char* As = smem + stage * kStageBytes + load_dst;
    char* Bs = smem + stage * kStageBytes + BM * BKB + load_dst;
    const char* a_src = Ag + load_src + kt * BKB;
    const char* b_src = Bg + load_src + kt * BKB;
#pragma unroll
    for (int pass = 0; pass < BM / kRowsPerPass; pass++)
      cp_async16(As + pass * kRowsPerPass * BKB, a_src + pass * kRowsPerPass * row_bytes);
#pragma unroll
    for (int pass = 0; pass < BN / kRowsPerPass; pass++)
      cp_async16(Bs + pass * kRowsPerPass * BKB, b_src + pass * kRowsPerPass * row_bytes);
  };

  typename Op::Acc acc[MT][NT][Op::kAcc];
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
      for (int i = 0; i < Op::kAcc; i++) acc[mt][nt][i] = 0;

#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; kt++) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // stage kt landed for every thread; stage kt-1 is free to refill
    int next = kt + STAGES - 1;
    if (next < k_tiles) load_stage(next % STAGES, next);
    cp_async_commit();  // an empty group keeps the wait count uniform at the tail
    const char* As = smem + (kt % STAGES) * kStageBytes;
    Op::template stage<MT, NT, BKB>(acc, As, As + BM * BKB, wrow, wcol, lane);
  }

  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
      Op::store(C, N, tile_m * BM + wrow + mt * Op::kTileM + g,
                tile_n * BN + wcol + nt * Op::kTileN + 2 * t, acc[mt][nt]);
}

// One configuration: its kernel, launch shape and shared bytes.
template <class Op, class In, class Out, int BM, int BN, int BKB, int WARPS_M, int WARPS_N,
          int STAGES>
struct GemmConfig {
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;
  static constexpr int kSmem = (BM + BN) * BKB * STAGES;
  static constexpr int kBM = BM, kBN = BN, kBK = BKB / (int)sizeof(In);
  static constexpr int kStages = STAGES, kWarpsM = WARPS_M, kWarpsN = WARPS_N;
  static void launch(const In* A, const In* B, Out* C, int M, int N, int K, cudaStream_t s) {
    auto kernel = tc_gemm<Op, In, Out, BM, BN, BKB, WARPS_M, WARPS_N, STAGES>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    kernel<<<(M / BM) * (N / BN), kThreads, kSmem, s>>>(A, B, C, M, N, K);
  }
};
