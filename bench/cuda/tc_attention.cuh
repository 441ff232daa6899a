// FlashAttention-2 forward of the nvcc baseline (issue 23): bf16 Q, K, V, O of shape
// [batch·heads][seq][D] row-major, non-causal, f32 online softmax. bench/tc.rs ports the
// same tiling to cudajit.
//
// A block owns BQ = 16·MW·WARPS query rows, each warp 16·MW of them (MW m-tiles, so
// that each K/V fragment read from shared memory feeds MW mma); Q's A fragments are
// re-read from shared memory at each k-step, as FA2 does, to leave registers to O. K/V tiles of BKV rows stream through a 2-stage cp.async pipeline. S = Q·Kᵀ
// reads K (kv × d, d contiguous: the N×K "col" operand) with ldmatrix; the accumulator
// layout of S is reused as P's A fragments (FA2's register trick), and O += P·V reads V
// (kv × d: a K×N operand) with ldmatrix.trans.
#pragma once
#include <type_traits>

#include "tc_gemm.cuh"

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// ex2.approx.ftz: what exp2f becomes under --use_fast_math (FA2's build) and what
// cudajit's exp2 lowers to in a fast_math kernel; plain exp2f adds a subnormal fix-up.
template <bool kFast>
__device__ __forceinline__ float exp2_of(float x) {
  if constexpr (kFast) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
  } else {
    return exp2f(x);
  }
}
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

template <int D, int WARPS, int MW, int BKV, bool kFastExp>
__global__ void __launch_bounds__(WARPS * 32)
    attention_fwd(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                  const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int seq,
                  float scale_log2) {
  constexpr int kThreads = WARPS * 32, BQ = 16 * MW * WARPS;
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

  // Fixed trip counts (the loops unroll); rows kThreads/kChunks apart share the swizzle.
  constexpr int kRowsPerPass = kThreads / kChunks;
  static_assert(kRowsPerPass % 8 == 0 && BKV % kRowsPerPass == 0 && BQ % kRowsPerPass == 0, "loader");
  const int load_row = tid / kChunks, load_chunk = tid % kChunks;
  const int load_dst = load_row * kRowBytes + swizzle<kChunks>(load_row, load_chunk) * 16;
  const int load_src = load_row * kRowBytes + load_chunk * 16;
  auto load_rows = [&](char* dst, const char* src, auto rows) {
#pragma unroll
    for (int pass = 0; pass < decltype(rows)::value / kRowsPerPass; pass++)
      cp_async16(dst + load_dst + pass * kRowsPerPass * kRowBytes,
                 src + load_src + pass * kRowsPerPass * kRowBytes);
  };
  auto load_kv = [&](int stage, int j) {
    load_rows(Ks + stage * kTileBytes, Kg + (long long)j * kTileBytes, std::integral_constant<int, BKV>());
    load_rows(Vs + stage * kTileBytes, Vg + (long long)j * kTileBytes, std::integral_constant<int, BKV>());
  };

  load_rows(Qs, Qg, std::integral_constant<int, BQ>());
  load_kv(0, 0);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();

  // Rows of one operand's tiles are 16 apart: the swizzle (row mod 8) is per lane.
  const int q_row = warp * 16 * MW + (lane & 15);
  const char* q_base = Qs + q_row * kRowBytes;
  const int q_swz = swizzle<kChunks>(q_row, 0), q_hi = lane >> 4;
  const int k_row = ((lane >> 4) << 3) + (lane & 7);
  const int k_swz = swizzle<kChunks>(k_row, 0), k_hi = (lane >> 3) & 1;
  const int v_row = (((lane >> 3) & 1) << 3) + (lane & 7);
  const int v_swz = swizzle<kChunks>(v_row, 0), v_hi = lane >> 4;

  float o[MW][D / 8][4];
  float row_max[MW][2], row_sum[MW][2];
#pragma unroll
  for (int m = 0; m < MW; m++) {
#pragma unroll
    for (int i = 0; i < D / 8; i++) o[m][i][0] = o[m][i][1] = o[m][i][2] = o[m][i][3] = 0.f;
    row_max[m][0] = row_max[m][1] = -INFINITY;
    row_sum[m][0] = row_sum[m][1] = 0.f;
  }

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

    // S = Q·Kᵀ for this warp's 16·MW rows × BKV columns.
    float s[MW][BKV / 8][4];
#pragma unroll
    for (int m = 0; m < MW; m++)
#pragma unroll
      for (int i = 0; i < BKV / 8; i++) s[m][i][0] = s[m][i][1] = s[m][i][2] = s[m][i][3] = 0.f;
#pragma unroll
    for (int kd = 0; kd < D / 16; kd++) {
      uint32_t qa[MW][4];
#pragma unroll
      for (int m = 0; m < MW; m++)
        ldmatrix_x4(qa[m], q_base + m * 16 * kRowBytes + ((kd * 2 + q_hi) ^ q_swz) * 16);
#pragma unroll
      for (int np = 0; np < BKV / 16; np++) {
        uint32_t b[4];
        ldmatrix_x4(b, Kt + (np * 16 + k_row) * kRowBytes + ((kd * 2 + k_hi) ^ k_swz) * 16);
#pragma unroll
        for (int m = 0; m < MW; m++) {
          mma_bf16(s[m][2 * np], qa[m], b[0], b[1]);
          mma_bf16(s[m][2 * np + 1], qa[m], b[2], b[3]);
        }
      }
    }

    // Online softmax in base 2; rows g (c0, c1) and g+8 (c2, c3), each spread over the
    // 4 lanes of a quad.
#pragma unroll
    for (int m = 0; m < MW; m++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float (&sm)[BKV / 8][4] = s[m];
      float tile_max = -INFINITY;
#pragma unroll
      for (int i = 0; i < BKV / 8; i++)
        tile_max = fmaxf(tile_max, fmaxf(sm[i][2 * h], sm[i][2 * h + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      float new_max = fmaxf(row_max[m][h], tile_max * scale_log2);
      float correction = exp2_of<kFastExp>(row_max[m][h] - new_max);
      row_max[m][h] = new_max;
      float sum = 0.f;
#pragma unroll
      for (int i = 0; i < BKV / 8; i++) {
        // fmaf spelled out: bench/tc_kernels.rs writes mul_add (cudajit does not contract).
        sm[i][2 * h] = exp2_of<kFastExp>(fmaf(sm[i][2 * h], scale_log2, -new_max));
        sm[i][2 * h + 1] = exp2_of<kFastExp>(fmaf(sm[i][2 * h + 1], scale_log2, -new_max));
        sum += sm[i][2 * h] + sm[i][2 * h + 1];
      }
      row_sum[m][h] = fmaf(row_sum[m][h], correction, sum);
#pragma unroll
      for (int i = 0; i < D / 8; i++) {
        o[m][i][2 * h] *= correction;
        o[m][i][2 * h + 1] *= correction;
      }
    }

    // O += P·V: P's A fragment for kv columns [16kk, 16kk+16) is S tiles 2kk and 2kk+1.
#pragma unroll
    for (int kk = 0; kk < BKV / 16; kk++) {
      uint32_t p[MW][4];
#pragma unroll
      for (int m = 0; m < MW; m++) {
        p[m][0] = pack_bf16(s[m][2 * kk][0], s[m][2 * kk][1]);
        p[m][1] = pack_bf16(s[m][2 * kk][2], s[m][2 * kk][3]);
        p[m][2] = pack_bf16(s[m][2 * kk + 1][0], s[m][2 * kk + 1][1]);
        p[m][3] = pack_bf16(s[m][2 * kk + 1][2], s[m][2 * kk + 1][3]);
      }
#pragma unroll
      for (int dp = 0; dp < D / 16; dp++) {
        // Matrices: kv rows 0-7 / 8-15 of d-tile 2dp, then of d-tile 2dp+1.
        uint32_t b[4];
        ldmatrix_x4_trans(b, Vt + (kk * 16 + v_row) * kRowBytes + ((dp * 2 + v_hi) ^ v_swz) * 16);
#pragma unroll
        for (int m = 0; m < MW; m++) {
          mma_bf16(o[m][2 * dp], p[m], b[0], b[1]);
          mma_bf16(o[m][2 * dp + 1], p[m], b[2], b[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with stage j&1 before iteration j+1 refills it
  }

#pragma unroll
  for (int m = 0; m < MW; m++) {
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float sum = row_sum[m][h];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      inv[h] = 1.f / sum;
    }
    __nv_bfloat16* Og = O + head + ((long long)blockIdx.x * BQ + warp * 16 * MW + m * 16 + g) * D;
#pragma unroll
    for (int i = 0; i < D / 8; i++) {
      int col = i * 8 + 2 * t;
      *reinterpret_cast<__nv_bfloat162*>(Og + col) =
          __floats2bfloat162_rn(o[m][i][0] * inv[0], o[m][i][1] * inv[0]);
      *reinterpret_cast<__nv_bfloat162*>(Og + 8 * D + col) =
          __floats2bfloat162_rn(o[m][i][2] * inv[1], o[m][i][3] * inv[1]);
    }
  }
}

template <int D, int WARPS, int MW, int BKV, bool kFastExp = false>
struct AttentionConfig {
  static constexpr int kThreads = WARPS * 32, kBQ = 16 * MW * WARPS, kBKV = BKV;
  static constexpr int kSmem = (kBQ + 4 * BKV) * D * 2;
  static void launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                     __nv_bfloat16* O, int heads, int seq, cudaStream_t s) {
    auto kernel = attention_fwd<D, WARPS, MW, BKV, kFastExp>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    kernel<<<dim3(seq / kBQ, heads), kThreads, kSmem, s>>>(Q, K, V, O, seq, scale_log2);
  }
};
