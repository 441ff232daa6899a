// FlashAttention-2 forward of the nvcc baseline (issue 23): bf16 Q, K, V, O of shape
// [batch·heads][seq][D] row-major, non-causal, f32 online softmax. bench/tc.rs ports the
// same tiling to cudajit.
//
// A block owns BQ = 16·WARPS query rows, each warp 16 of them; Q stays in registers as
// A fragments. K/V tiles of BKV rows stream through a 2-stage cp.async pipeline. S = Q·Kᵀ
// reads K (kv × d, d contiguous: the N×K "col" operand) with ldmatrix; the accumulator
// layout of S is reused as P's A fragments (FA2's register trick), and O += P·V reads V
// (kv × d: a K×N operand) with ldmatrix.trans.
#pragma once
#include "tc_gemm.cuh"

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

template <int D, int WARPS, int BKV>
__global__ void __launch_bounds__(WARPS * 32)
    attention_fwd(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                  const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int seq,
                  float scale_log2) {
  constexpr int kThreads = WARPS * 32, BQ = 16 * WARPS;
  constexpr int kRowBytes = D * 2, kChunks = D / 8;
  constexpr int kTileBytes = BKV * kRowBytes;
  extern __shared__ __align__(128) char smem[];
  char* Qs = smem;
  char* Ks = Qs + BQ * kRowBytes;  // [2][BKV][D]
  char* Vs = Ks + 2 * kTileBytes;  // [2][BKV][D]

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const long long head = (long long)blockIdx.y * seq * D;
  const char* Qg = reinterpret_cast<const char*>(Q + head + (long long)blockIdx.x * BQ * D);
  const char* Kg = reinterpret_cast<const char*>(K + head);
  const char* Vg = reinterpret_cast<const char*>(V + head);

  auto load_rows = [&](char* dst, const char* src, int rows) {
    for (int i = tid; i < rows * kChunks; i += kThreads) {
      int r = i / kChunks, c = i % kChunks;
      cp_async16(dst + r * kRowBytes + swizzle<kChunks>(r, c) * 16, src + r * kRowBytes + c * 16);
    }
  };
  auto load_kv = [&](int stage, int j) {
    load_rows(Ks + stage * kTileBytes, Kg + (long long)j * kTileBytes, BKV);
    load_rows(Vs + stage * kTileBytes, Vg + (long long)j * kTileBytes, BKV);
  };

  load_rows(Qs, Qg, BQ);
  load_kv(0, 0);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();

  uint32_t qf[D / 16][4];
#pragma unroll
  for (int kd = 0; kd < D / 16; kd++) {
    int row = warp * 16 + (lane & 15), chunk = kd * 2 + (lane >> 4);
    ldmatrix_x4(qf[kd], Qs + row * kRowBytes + swizzle<kChunks>(row, chunk) * 16);
  }

  float o[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; i++) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.f, 0.f};

  const int kv_tiles = seq / BKV;
  for (int j = 0; j < kv_tiles; j++) {
    if (j + 1 < kv_tiles) {
      load_kv((j + 1) & 1, j + 1);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const char* Kt = Ks + (j & 1) * kTileBytes;
    const char* Vt = Vs + (j & 1) * kTileBytes;

    // S = Q·Kᵀ for this warp's 16 rows × BKV columns.
    float s[BKV / 8][4];
#pragma unroll
    for (int i = 0; i < BKV / 8; i++) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kd = 0; kd < D / 16; kd++) {
#pragma unroll
      for (int np = 0; np < BKV / 16; np++) {
        int row = np * 16 + ((lane >> 4) << 3) + (lane & 7);
        int chunk = kd * 2 + ((lane >> 3) & 1);
        uint32_t b[4];
        ldmatrix_x4(b, Kt + row * kRowBytes + swizzle<kChunks>(row, chunk) * 16);
        mma_bf16(s[2 * np], qf[kd], b[0], b[1]);
        mma_bf16(s[2 * np + 1], qf[kd], b[2], b[3]);
      }
    }

    // Online softmax in base 2; rows g (c0, c1) and g+8 (c2, c3), each spread over the
    // 4 lanes of a quad.
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int i = 0; i < BKV / 8; i++)
        tile_max = fmaxf(tile_max, fmaxf(s[i][2 * h], s[i][2 * h + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      float new_max = fmaxf(row_max[h], tile_max * scale_log2);
      float correction = exp2f(row_max[h] - new_max);
      row_max[h] = new_max;
      float sum = 0.f;
#pragma unroll
      for (int i = 0; i < BKV / 8; i++) {
        s[i][2 * h] = exp2f(s[i][2 * h] * scale_log2 - new_max);
        s[i][2 * h + 1] = exp2f(s[i][2 * h + 1] * scale_log2 - new_max);
        sum += s[i][2 * h] + s[i][2 * h + 1];
      }
      row_sum[h] = row_sum[h] * correction + sum;
#pragma unroll
      for (int i = 0; i < D / 8; i++) {
        o[i][2 * h] *= correction;
        o[i][2 * h + 1] *= correction;
      }
    }

    // O += P·V: P's A fragment for kv columns [16kk, 16kk+16) is S tiles 2kk and 2kk+1.
#pragma unroll
    for (int kk = 0; kk < BKV / 16; kk++) {
      uint32_t p[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]), pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                       pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                       pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int dp = 0; dp < D / 16; dp++) {
        // Matrices: kv rows 0-7 / 8-15 of d-tile 2dp, then of d-tile 2dp+1.
        int row = kk * 16 + (((lane >> 3) & 1) << 3) + (lane & 7);
        int chunk = dp * 2 + (lane >> 4);
        uint32_t b[4];
        ldmatrix_x4_trans(b, Vt + row * kRowBytes + swizzle<kChunks>(row, chunk) * 16);
        mma_bf16(o[2 * dp], p, b[0], b[1]);
        mma_bf16(o[2 * dp + 1], p, b[2], b[3]);
      }
    }
    __syncthreads();  // every warp is done with stage j&1 before iteration j+1 refills it
  }

#pragma unroll
  for (int h = 0; h < 2; h++) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
    row_sum[h] = 1.f / row_sum[h];
  }
  __nv_bfloat16* Og = O + head + ((long long)blockIdx.x * BQ + warp * 16 + g) * D;
#pragma unroll
  for (int i = 0; i < D / 8; i++) {
    int col = i * 8 + 2 * t;
    *reinterpret_cast<__nv_bfloat162*>(Og + col) =
        __floats2bfloat162_rn(o[i][0] * row_sum[0], o[i][1] * row_sum[0]);
    *reinterpret_cast<__nv_bfloat162*>(Og + 8 * D + col) =
        __floats2bfloat162_rn(o[i][2] * row_sum[1], o[i][3] * row_sum[1]);
  }
}

template <int D, int WARPS, int BKV>
struct AttentionConfig {
  static constexpr int kThreads = WARPS * 32, kBQ = 16 * WARPS, kBKV = BKV;
  static constexpr int kSmem = (kBQ + 4 * BKV) * D * 2;
  static void launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                     __nv_bfloat16* O, int heads, int seq, cudaStream_t s) {
    auto kernel = attention_fwd<D, WARPS, BKV>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    kernel<<<dim3(seq / kBQ, heads), kThreads, kSmem, s>>>(Q, K, V, O, seq, scale_log2);
  }
};
