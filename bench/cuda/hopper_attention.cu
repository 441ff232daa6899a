// The nvcc twin of cudajit's FlashAttention-3-structured attention forward (issue 24;
// bench/hopper_attention_kernels.rs): bf16 Q, K, V, O of shape [batch·heads][seq][D]
// row-major, non-causal, f32 online softmax in base 2 with the scale folded, the same
// algorithm tile for tile:
// - a block of 384 threads owns 128 query rows of one head: warpgroup 0 is the producer
//   (setmaxnreg down to 24; one thread issues every TMA), warpgroups 1 and 2 the
//   consumers (setmaxnreg up to 240), 64 query rows each;
// - Q (128 × D) is loaded once; K and V tiles (128 × D) stream through a 2-stage ring:
//   `k_full[s]`, `v_full[s]` (count 1, completed by the TMA bytes) and `kv_empty[s]`
//   (count 256: every consumer thread releases the stage after its P·V);
// - every tile is 128B-swizzled TMA boxes of 128 rows × 64 columns, D / 64 boxes side by
//   side; S = Q·Kᵀ is wgmma m64n128k16 with both operands K-major from shared memory;
//   O += P·V is wgmma m64nDk16 with P (bf16) from registers — the S accumulator's pairs
//   packed in place, the m16n8k16 A layout per warp — and V read MN-major (imm-trans-b):
//   leading byte offset = the next 64 columns of D (the next box), stride = 8 rows;
// - `kOverlap` (FA3's intra-warpgroup pipelining): S of tile j+1 is issued before P·V of
//   tile j, and the softmax of tile j+1 runs while that P·V is in flight;
// - `kPingpong` (FA3's inter-warpgroup scheduling, with kOverlap): the two consumers take
//   turns issuing their wgmmas (named barriers 1 and 2), so that one's softmax runs while
//   the other's GEMMs hold the tensor cores.
//
// Built on the GPU machine by bench/run_hopper_attention.sh: nvcc -O3 -std=c++17
// -gencode arch=compute_90a,code=sm_90a. Prints
// `RESULT attention_d<D>.<impl> <median_us> flops=<n>,reps=<n>,error=<e>` (what
// bench/report_hopper_attention.py reads). Inputs are splitmix64 of (seed, index) as in
// bench/tc.rs's attention (seeds 33, 44, 55); the output is poisoned (NaN) first, every
// element checked written and 16 sampled rows checked against an f64 reference.
//
//   hopper_attention_nvcc [D ...]   (default: 128 64)
#include "hopper_common.cuh"

static const int kHeads = 128, kSeq = 4096;  // batch × heads, sequence
static const int kThreads = 384, kBlockRows = 128, kTileRows = 128, kBoxBytes = 128 * 128;

// The descriptor of a 128B-swizzled tile of 128-byte rows: start address >> 4, leading
// byte offset (MN-major: to the next 64 columns; unused K-major), stride 1024 bytes (8
// rows), mode 1 (128B) in bits 62..63. A k-step adds its byte offset >> 4.
__device__ __forceinline__ uint64_t descriptor(const void* p, uint32_t leading_bytes) {
  uint64_t addr = smem_addr(p);
  return ((addr & 0x3FFFF) >> 4) | ((uint64_t)(leading_bytes >> 4) << 16) |
         ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}

// Keeps the compiler from moving a register's uses across a wgmma wait (CUTLASS's
// warpgroup_fence_operand): the accumulators are written asynchronously.
template <int N>
__device__ __forceinline__ void fence_operands(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void fence_operands(uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+r"(r[i])::"memory");
}

// Named barriers 1 + cw: consumer cw's turn to issue wgmmas (256 threads: its own 128
// waiting, the other consumer's 128 arriving).
__device__ __forceinline__ void turn_wait(int cw) {
  asm volatile("bar.sync %0, 256;" ::"r"(1 + cw) : "memory");
}
__device__ __forceinline__ void turn_pass(int cw) {
  asm volatile("bar.arrive %0, 256;" ::"r"(2 - cw) : "memory");
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// S = A·Bᵀ (scale_d 0) or D += A·Bᵀ: A and B K-major from descriptors.
__device__ __forceinline__ void wgmma_ss_m64n128k16(float (&d)[64], uint64_t desc_a,
                                                  uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},"
      " %64, %65, p, 1, 1, 0, 0;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

// D += A·B: A (64 x 16 bf16) from registers in the m16n8k16 A layout per warp, B
// MN-major ("transposed", imm-trans-b 1) from its descriptor.
__device__ __forceinline__ void wgmma_rs_m64n128k16_tnspb(float (&d)[64], const uint32_t* a,
                                                       uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},"
      " {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1)
      : "memory");
}

// D += A·B: A (64 x 16 bf16) from registers in the m16n8k16 A layout per warp, B
// MN-major ("transposed", imm-trans-b 1) from its descriptor.
__device__ __forceinline__ void wgmma_rs_m64n64k16_tnspb(float (&d)[32], const uint32_t* a,
                                                       uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
      " {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1)
      : "memory");
}

template <int D>
__device__ __forceinline__ void wgmma_pv(float (&o)[D / 2], const uint32_t* p, uint64_t desc_v) {
  if constexpr (D == 128)
    wgmma_rs_m64n128k16_tnspb(o, p, desc_v);
  else
    wgmma_rs_m64n64k16_tnspb(o, p, desc_v);
}

// S = Q·Kᵀ for this warpgroup's 64 rows and the stage's 128 keys: D / 16 k-steps, the
// 16 columns of step ks in box ks / 4 at byte (ks % 4) · 32 of each 128-byte row.
template <int D>
__device__ __forceinline__ void issue_qk(float (&s)[64], uint64_t desc_q, uint64_t desc_k) {
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < D / 16; ks++) {
    uint32_t step = (ks / 4) * (kBoxBytes >> 4) + (ks % 4) * 2;
    wgmma_ss_m64n128k16(s, desc_q + step, desc_k + step, ks > 0);
  }
  wgmma_commit();
}
// O += P·V: 8 k-steps of 16 keys, P's registers 4 kk .. 4 kk + 3, V's rows 16 kk.. .
template <int D>
__device__ __forceinline__ void issue_pv(float (&o)[D / 2], const uint32_t (&p)[32],
                                         uint64_t desc_v) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 8; kk++) wgmma_pv<D>(o, &p[4 * kk], desc_v + kk * (16 * 128 >> 4));
  wgmma_commit();
}

// The online softmax of one S tile, in place: accumulator i of a thread is row
// 16 (warp) + lane / 4 + 8 ((i / 2) % 2), so row half h owns i = 4 c + 2 h + {0, 1};
// a row's 128 columns are spread over the 4 lanes of a quad. Returns each half's
// correction exp2(m_old − m_new) and adds the half's new partial sum to row_sum after
// scaling it.
__device__ __forceinline__ void softmax_tile(float (&s)[64], float (&row_max)[2],
                                             float (&row_sum)[2], float (&correction)[2],
                                             float scale_log2) {
#pragma unroll
  for (int h = 0; h < 2; h++) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int c = 0; c < 16; c++) tile_max = fmaxf(tile_max, fmaxf(s[4 * c + 2 * h], s[4 * c + 2 * h + 1]));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    float new_max = fmaxf(row_max[h], tile_max * scale_log2);
    correction[h] = exp2_approx(row_max[h] - new_max);
    row_max[h] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int c = 0; c < 16; c++) {
      float& a = s[4 * c + 2 * h];
      float& b = s[4 * c + 2 * h + 1];
      a = exp2_approx(fmaf(a, scale_log2, -new_max));
      b = exp2_approx(fmaf(b, scale_log2, -new_max));
      sum += a + b;
    }
    row_sum[h] = fmaf(row_sum[h], correction[h], sum);
  }
}
template <int D>
__device__ __forceinline__ void rescale(float (&o)[D / 2], const float (&correction)[2]) {
#pragma unroll
  for (int i = 0; i < D / 2; i++) o[i] *= correction[(i / 2) % 2];
}
// P's A fragments: S's accumulator pairs (2 j, 2 j + 1) are P's register j.
__device__ __forceinline__ void pack_p(uint32_t (&p)[32], const float (&s)[64]) {
#pragma unroll
  for (int j = 0; j < 32; j++) p[j] = pack_bf16(s[2 * j], s[2 * j + 1]);
}

template <int D, bool kOverlap, bool kPingpong>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fa3(const __grid_constant__ CUtensorMap map_q,
                  const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, bf16* __restrict__ out, int seq,
                  float scale_log2) {
  constexpr int kBoxes = D / 64, kTileBytes = kBoxes * kBoxBytes;
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* q_tile = smem;
  unsigned char* k_tiles = q_tile + kTileBytes;  // [2 stages]
  unsigned char* v_tiles = k_tiles + 2 * kTileBytes;
  // q_full, k_full[2], v_full[2], kv_empty[2]
  uint64_t* bars = (uint64_t*)(v_tiles + 2 * kTileBytes);
  uint64_t *q_full = bars, *k_full = bars + 1, *v_full = bars + 3, *kv_empty = bars + 5;
  int t = threadIdx.x, wg = t / 128, tw = t % 128;
  int head_row = blockIdx.y * seq, q_row = head_row + blockIdx.x * kBlockRows;
  int kv_tiles = seq / kTileRows;
  if (t == 0) {
    mbar_init(q_full, 1);
    for (int s = 0; s < 2; s++) {
      mbar_init(&k_full[s], 1);
      mbar_init(&v_full[s], 1);
      mbar_init(&kv_empty[s], 256);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {
    setmaxnreg_dec<24>();
    if (tw == 0) {
      tma_prefetch(&map_q);
      tma_prefetch(&map_k);
      tma_prefetch(&map_v);
      mbar_arrive_expect_tx(q_full, kTileBytes);
      for (int b = 0; b < kBoxes; b++) tma_load_2d(q_tile + b * kBoxBytes, &map_q, q_row, b * 64, q_full);
      for (int j = 0; j < kv_tiles; j++) {
        int s = j % 2;
        if (j >= 2) mbar_wait(&kv_empty[s], (j / 2 - 1) % 2);
        int row = head_row + j * kTileRows;
        mbar_arrive_expect_tx(&k_full[s], kTileBytes);
        for (int b = 0; b < kBoxes; b++)
          tma_load_2d(k_tiles + s * kTileBytes + b * kBoxBytes, &map_k, row, b * 64, &k_full[s]);
        mbar_arrive_expect_tx(&v_full[s], kTileBytes);
        for (int b = 0; b < kBoxes; b++)
          tma_load_2d(v_tiles + s * kTileBytes + b * kBoxBytes, &map_v, row, b * 64, &v_full[s]);
      }
    }
  } else {
    setmaxnreg_inc<240>();
    int cw = wg - 1;
    // Stage 0's descriptors; stage s adds kTileBytes · s >> 4.
    uint64_t desc_q = descriptor(q_tile + cw * 64 * 128, 0);
    uint64_t desc_k = descriptor(k_tiles, 0), desc_v = descriptor(v_tiles, kBoxBytes);
    constexpr uint32_t kStageStep = kTileBytes >> 4;
    float o[D / 2], s[64], row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.f, 0.f};
    float correction[2];
    uint32_t p[32];
#pragma unroll
    for (int i = 0; i < D / 2; i++) o[i] = 0.f;
    mbar_wait(q_full, 0);
    if constexpr (!kOverlap) {
#pragma unroll 1
      for (int j = 0; j < kv_tiles; j++) {
        int st = j % 2;
        uint32_t phase = (j / 2) % 2;
        mbar_wait(&k_full[st], phase);
        issue_qk<D>(s, desc_q, desc_k + st * kStageStep);
        wgmma_wait<0>();
        fence_operands(s);
        softmax_tile(s, row_max, row_sum, correction, scale_log2);
        rescale<D>(o, correction);
        pack_p(p, s);
        mbar_wait(&v_full[st], phase);
        fence_operands(o);
        issue_pv<D>(o, p, desc_v + st * kStageStep);
        wgmma_wait<0>();
        fence_operands(o);
        mbar_arrive(&kv_empty[st]);
      }
    } else {
      // Consumer 0 takes the first turn; the last pass of consumer 1 is left out so that
      // each barrier sees as many passes as waits.
      if (kPingpong && cw == 1) turn_pass(cw);
      mbar_wait(&k_full[0], 0);
      if (kPingpong) turn_wait(cw);
      issue_qk<D>(s, desc_q, desc_k);
      if (kPingpong) turn_pass(cw);
      wgmma_wait<0>();
      fence_operands(s);
      softmax_tile(s, row_max, row_sum, correction, scale_log2);
      pack_p(p, s);
#pragma unroll 1
      for (int j = 1; j < kv_tiles; j++) {
        int st = j % 2, prev = (j - 1) % 2;
        mbar_wait(&k_full[st], (j / 2) % 2);
        mbar_wait(&v_full[prev], ((j - 1) / 2) % 2);
        if (kPingpong) turn_wait(cw);
        issue_qk<D>(s, desc_q, desc_k + st * kStageStep);
        fence_operands(o);
        fence_operands(p);
        issue_pv<D>(o, p, desc_v + prev * kStageStep);
        if (kPingpong) turn_pass(cw);
        wgmma_wait<1>();  // S of tile j landed; P·V of tile j − 1 still runs
        fence_operands(s);
        softmax_tile(s, row_max, row_sum, correction, scale_log2);
        wgmma_wait<0>();
        fence_operands(o);
        fence_operands(p);
        mbar_arrive(&kv_empty[prev]);
        rescale<D>(o, correction);
        pack_p(p, s);
      }
      int last = (kv_tiles - 1) % 2;
      mbar_wait(&v_full[last], ((kv_tiles - 1) / 2) % 2);
      if (kPingpong) turn_wait(cw);
      fence_operands(o);
      issue_pv<D>(o, p, desc_v + last * kStageStep);
      if (kPingpong && cw == 0) turn_pass(cw);
      wgmma_wait<0>();
      fence_operands(o);
      mbar_arrive(&kv_empty[last]);
    }
    // O / row sum (the quad's partial sums added), bf16 pairs straight from the registers.
    int lane = tw % 32;
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float sum = row_sum[h];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      inv[h] = 1.f / sum;
    }
    bf16* row = out + (size_t)(q_row + cw * 64 + 16 * (tw / 32) + lane / 4) * D + 2 * (lane % 4);
#pragma unroll
    for (int c = 0; c < D / 8; c++)
#pragma unroll
      for (int h = 0; h < 2; h++)
        *reinterpret_cast<__nv_bfloat162*>(row + 8 * h * D + 8 * c) =
            __floats2bfloat162_rn(o[4 * c + 2 * h] * inv[h], o[4 * c + 2 * h + 1] * inv[h]);
  }
}

template <int D>
static constexpr size_t shared_bytes() {
  return 5 * (size_t)(D / 64) * kBoxBytes + 8 * 8;
}

static bool g_failed = false;

// ‖got − ref‖ / ‖ref‖ over 4 rows of each of 4 heads, in f64 (bench/tc.rs's
// attention_error: the same heads and rows).
static double attention_error(const std::vector<bf16>& got, int d) {
  double diff2 = 0, ref2 = 0;
  std::vector<double> q(d), scores(kSeq);
  for (int sh = 0; sh < 4; sh++) {
    size_t head = (size_t)(mix(7, sh) % kHeads) * kSeq * d;
    for (int sr = 0; sr < 4; sr++) {
      size_t row = mix(8, sh * 4 + sr) % kSeq;
      for (int x = 0; x < d; x++) q[x] = input_f64(33, head + row * d + x);
      double top = -INFINITY;
      for (int j = 0; j < kSeq; j++) {
        double dot = 0;
        for (int x = 0; x < d; x++) dot += q[x] * input_f64(44, head + (size_t)j * d + x);
        scores[j] = dot / std::sqrt((double)d);
        top = std::max(top, scores[j]);
      }
      double total = 0;
      for (int j = 0; j < kSeq; j++) total += scores[j] = std::exp(scores[j] - top);
      for (int x = 0; x < d; x++) {
        double want = 0;
        for (int j = 0; j < kSeq; j++) want += scores[j] * input_f64(55, head + (size_t)j * d + x);
        want /= total;
        double diff = __bfloat162float(got[head + row * d + x]) - want;
        diff2 += diff * diff;
        ref2 += want * want;
      }
    }
  }
  return std::sqrt(diff2 / ref2);
}

template <int D, bool kOverlap, bool kPingpong = false>
static void run(const char* impl, const bf16* Q, const bf16* K, const bf16* V, bf16* O, int reps) {
  auto kernel = attention_fa3<D, kOverlap, kPingpong>;
  constexpr size_t smem = shared_bytes<D>();
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  uint64_t rows = (uint64_t)kHeads * kSeq;
  CUtensorMap map_q = tensor_map(Q, rows, D, kBlockRows), map_k = tensor_map(K, rows, D, kTileRows),
              map_v = tensor_map(V, rows, D, kTileRows);
  float scale_log2 = 1.4426950408889634f / std::sqrt((float)D);
  auto launch = [&] {
    kernel<<<dim3(kSeq / kBlockRows, kHeads), kThreads, smem>>>(map_q, map_k, map_v, O, kSeq,
                                                               scale_log2);
  };
  size_t elems = (size_t)kHeads * kSeq * D;
  CHECK(cudaMemset(O, 0xff, elems * sizeof(bf16)));  // NaN
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<bf16> got(elems);
  CHECK(cudaMemcpy(got.data(), O, elems * sizeof(bf16), cudaMemcpyDeviceToHost));
  size_t unwritten = 0;
  for (bf16 v : got) unwritten += !std::isfinite(__bfloat162float(v));
  double error = attention_error(got, D);
  if (unwritten || !(error <= 2e-2)) {
    std::printf("WRONG attention_d%d.%s: %zu unwritten, error %.3g\n", D, impl, unwritten, error);
    g_failed = true;
    return;
  }
  for (int i = 0; i < 3; i++) launch();
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CHECK(cudaEventRecord(ev[2 * i]));
    launch();
    CHECK(cudaEventRecord(ev[2 * i + 1]));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<double> us(reps);
  for (int i = 0; i < reps; i++) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us[i] = ms * 1e3;
  }
  for (auto& e : ev) CHECK(cudaEventDestroy(e));
  double flops = 4.0 * kHeads * (double)kSeq * kSeq * D, t = median(us);
  std::printf("RESULT attention_d%d.%s %.3f flops=%.0f,reps=%d,error=%.3g\n", D, impl, t, flops,
              reps, error);
  std::printf("  attention_d%-4d %-16s %10.1f us %8.1f TFLOP/s\n", D, impl, t, flops / t * 1e-6);
  std::fflush(stdout);
}

template <int D>
static void run_all() {
  size_t elems = (size_t)kHeads * kSeq * D;
  bf16 *Q, *K, *V, *O;
  CHECK(cudaMalloc(&Q, elems * sizeof(bf16)));
  CHECK(cudaMalloc(&K, elems * sizeof(bf16)));
  CHECK(cudaMalloc(&V, elems * sizeof(bf16)));
  CHECK(cudaMalloc(&O, elems * sizeof(bf16)));
  fill<<<1024, 256>>>(Q, elems, 33);
  fill<<<1024, 256>>>(K, elems, 44);
  fill<<<1024, 256>>>(V, elems, 55);
  run<D, false>("nvcc", Q, K, V, O, 20);
  run<D, true>("nvcc_overlap", Q, K, V, O, 20);
  run<D, true, true>("nvcc_pingpong", Q, K, V, O, 20);
  for (bf16* p : {Q, K, V, O}) CHECK(cudaFree(p));
}

int main(int argc, char** argv) {
  std::vector<int> dims;
  for (int i = 1; i < argc; i++) dims.push_back(std::atoi(argv[i]));
  if (dims.empty()) dims = {128, 64};
  for (int d : dims) {
    if (d == 128)
      run_all<128>();
    else if (d == 64)
      run_all<64>();
    else {
      std::printf("WRONG attention_d%d: D must be 64 or 128\n", d);
      g_failed = true;
    }
  }
  return g_failed ? 1 : 0;
}
