// The nvcc baseline of the SIMT benchmark suite (issue 6): the same algorithms, launch
// shapes, sizes and inputs as bench/simt.rs (cudajit) and bench/numba/simt.py (Numba).
//
// Built on the GPU machine by bench/run_simt.sh with `nvcc -O3 -arch=sm_90`. Prints
// `RESULT <kernel>.nvcc <median_us> <key=value,...>` lines that bench/report_simt.py
// reads, plus `RESULT copy.nvcc` (device-to-device cudaMemcpy, the bandwidth ceiling).
// Every kernel's output is checked against a CPU reference before it is timed; a wrong
// result exits 1. Code is plain scalar CUDA C++ (no float4, no intrinsics the subset
// lacks) so that the three implementations really are the same algorithm.
//
//   simt_nvcc [kernel ...]     (no argument: all of them)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// A wrong result: this kernel is not timed, the others still run, the exit status is 1.
struct WrongResult {
  std::string what;
};
static void fail(const char* what) { throw WrongResult{what}; }

static const unsigned kFull = 0xffffffffu;

// ---- sizes and launch shapes: identical in bench/simt.rs and bench/numba/simt.py
static const long long kSumN = 1LL << 28;  // f32 elements summed
static const int kSumBlock = 256, kSumGrid = 2048;
static const int kMatN = 2048, kTpb = 16;  // Numba's fast_matmul
static const int kGemmN = 4096;            // SGEMM n×n×n
static const int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8, kGemmThreads = 256;
static const long long kHistN = 1LL << 26;  // u8 values
static const int kHistBlock = 256, kHistGrid = 1024, kBins = 256;
static const int kTransN = 8192, kTile = 32, kTileRows = 8;
static const int kStencilN = 8192, kStTile = 32, kStRows = 8;  // 32×8 threads per 32×32 tile
static const long long kScanN = 1LL << 26;  // u32 values
static const int kScanBlock = 256, kScanItems = 16, kScanSumsBlock = 1024;
static const int kPiBlock = 256, kPiGrid = 1024, kPiIters = 1024;
static const unsigned long long kPiSeed = 1234;
static const long long kGsN = 1LL << 26;
static const int kGsBlock = 256, kGsBlocksPerSm = 2, kGsShared = kGsBlock * 4;
static const long long kCopyN = 1LL << 26;  // f32 elements copied
static const int kCopyBlock = 256;
static const int kNbodyN = 65536, kNbodyBlock = 256;  // the block is the 256-body tile
static const float kNbodyDt = 0.01f, kNbodySoftening2 = 0.05f;
static const double kFlopsPerInteraction = 20.0;  // the usual count (NVIDIA's nbody sample's)
static const int kBsN = 1 << 24, kBsBlock = 128;  // options
static const double kBsRate = 0.02, kBsVolatility = 0.30;
// The CUDA SDK's Black-Scholes coefficients (Abramowitz & Stegun 26.2.17).
static const double kCndK = 0.2316419, kCndA1 = 0.31938153, kCndA2 = -0.356563782,
                    kCndA3 = 1.781477937, kCndA4 = -1.821255978, kCndA5 = 1.330274429,
                    kRsqrt2Pi = 0.3989422804014327;

// ---- inputs: splitmix64 of (seed, index), the same numbers in all three programs
static inline uint64_t mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + i;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// k / 2^24 in [0, 1), exact in f32.
static std::vector<float> unit_floats(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (float)(mix(seed, i) >> 40) * (1.0f / 16777216.0f);
  return v;
}
// [-1, 1), exact in f32.
static std::vector<float> signed_floats(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(mix(seed, i) >> 40) * (1.0f / 8388608.0f) - 1.0f;
  return v;
}
static std::vector<uint8_t> bytes(size_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (uint8_t)(mix(seed, i) >> 56);
  return v;
}
// 0..15: a scan of 2^26 of them stays below 2^32.
static std::vector<uint32_t> small_u32(size_t n, uint64_t seed) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (uint32_t)(mix(seed, i) >> 60);
  return v;
}

// =====================================================================================
// Kernels
// =====================================================================================

// 0. The plainest memory-bound kernel, one element per thread: a control for the others.
__global__ void copy_kernel(const float* in, float* out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// 1. Sum: grid-stride accumulation into four independent sums (memory-level
// parallelism), a shared-memory tree, one atomic per block.
__global__ void sum_shared(const float* x, long long n, float* out) {
  __shared__ float sm[kSumBlock];
  unsigned tid = threadIdx.x;
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + tid;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  while (i + 3 * stride < n) {
    a0 += x[i];
    a1 += x[i + stride];
    a2 += x[i + 2 * stride];
    a3 += x[i + 3 * stride];
    i += 4 * stride;
  }
  while (i < n) {
    a0 += x[i];
    i += stride;
  }
  sm[tid] = (a0 + a1) + (a2 + a3);
  __syncthreads();
  unsigned s = blockDim.x / 2;
  while (s > 0) {
    if (tid < s) sm[tid] += sm[tid + s];
    __syncthreads();
    s >>= 1;
  }
  if (tid == 0) atomicAdd(out, sm[0]);
}

// 2. The same accumulation; warp shuffles, one shared slot per warp, one atomic per block.
__global__ void sum_warp(const float* x, long long n, float* out) {
  __shared__ float warp_sums[32];
  unsigned tid = threadIdx.x;
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + tid;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  while (i + 3 * stride < n) {
    a0 += x[i];
    a1 += x[i + stride];
    a2 += x[i + 2 * stride];
    a3 += x[i + 3 * stride];
    i += 4 * stride;
  }
  while (i < n) {
    a0 += x[i];
    i += stride;
  }
  float v = (a0 + a1) + (a2 + a3);
  for (unsigned off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
  unsigned lane = tid % 32, warp = tid / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (unsigned off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
    if (lane == 0) atomicAdd(out, v);
  }
}

// Kernels whose cudajit version declares its block (`#[kernel(block_dim = ..)]`: the
// block a compile-time constant, `.reqntid`) have it here as the constant they are
// launched with, and `__launch_bounds__` of its size, as a CUDA kernel templated on its
// block size has: the same knowledge for both compilers.

// 3. Numba's documented shared-memory matrix multiply (`fast_matmul`, TPB = 16).
__global__ void __launch_bounds__(kTpb * kTpb) fast_matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float sA[kTpb][kTpb];
  __shared__ float sB[kTpb][kTpb];
  int x = blockIdx.x * kTpb + threadIdx.x;
  int y = blockIdx.y * kTpb + threadIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int bpg = gridDim.x;
  float tmp = 0.0f;
  for (int i = 0; i < bpg; i++) {
    sA[ty][tx] = 0.0f;
    sB[ty][tx] = 0.0f;
    if (y < n && tx + i * kTpb < n) sA[ty][tx] = A[y * n + tx + i * kTpb];
    if (x < n && ty + i * kTpb < n) sB[ty][tx] = B[(ty + i * kTpb) * n + x];
    __syncthreads();
    for (int j = 0; j < kTpb; j++) tmp += sA[ty][j] * sB[j][tx];
    __syncthreads();
  }
  if (y < n && x < n) C[y * n + x] = tmp;
}

// 4. Register-tiled SGEMM, C = A·B, n×n row-major, n a multiple of 128: a 128×128
// block tile, 8-deep k tiles in shared memory (A stored transposed), 256 threads on a
// 16×16 grid, each computing an 8×8 micro-tile as two 4-row × two 4-column groups 64
// apart. A warp covers 4 thread rows × 8 thread columns, so each of its shared reads
// touches 4 (A) or 8 (B) distinct words in distinct banks: one wavefront per read. The
// next k tile is loaded into registers while the current one is multiplied. Scalar
// loads only: what the cudajit subset can express.
// sgemm<true> is the suite's kernel, as cudajit's is written: 16-byte aligned shared
// tiles (cudajit aligns every shared array so; the compiler then loads 4 floats per
// shared read), the k loop fully unrolled (cudajit's `#[unroll]`) and at most 256
// threads with 2 blocks per SM (`launch_bounds = (256, 2)`: 128 registers).
// sgemm<false> (reported as sgemm_rolled, not compared) keeps the k loop rolled with
// 4-byte aligned tiles, as the suite's kernel was before cudajit had `#[unroll]`
// (66% of cuBLAS on an H100, against 75% unrolled).
template <bool kTuned>
__global__ void __launch_bounds__(256, 2) sgemm(const float* A, const float* B, float* C, int n) {
  __shared__ __align__(kTuned ? 16 : 4) float As[kBK][kBM];
  __shared__ __align__(kTuned ? 16 : 4) float Bs[kBK][kBN];
  int tid = threadIdx.x;
  int warp = tid / 32, lane = tid % 32;
  int trow = (warp / 2) * 4 + lane / 8, tcol = (warp % 2) * 8 + lane % 8;
  int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  // Loads: A tile 128×8 and B tile 8×128, four elements per thread each.
  int a_row = tid / 2, a_col = (tid % 2) * 4;
  int b_row = tid / 32, b_col = (tid % 32) * 4;
  float acc[kTM][kTN];
  for (int m = 0; m < kTM; m++)
    for (int j = 0; j < kTN; j++) acc[m][j] = 0.0f;
  float ra[kTM], rb[kTN];
  // The next k tile's elements, loaded into registers while this tile is multiplied.
  float pa[4], pb[4];
  for (int j = 0; j < 4; j++) {
    pa[j] = A[(row0 + a_row) * n + a_col + j];
    pb[j] = B[b_row * n + col0 + b_col + j];
  }
  for (int k0 = 0; k0 < n; k0 += kBK) {
    for (int j = 0; j < 4; j++) {
      As[a_col + j][a_row] = pa[j];
      Bs[b_row][b_col + j] = pb[j];
    }
    __syncthreads();
    if (k0 + kBK < n) {
      for (int j = 0; j < 4; j++) {
        pa[j] = A[(row0 + a_row) * n + k0 + kBK + a_col + j];
        pb[j] = B[(k0 + kBK + b_row) * n + col0 + b_col + j];
      }
    }
#pragma unroll(kTuned ? kBK : 1)
    for (int k = 0; k < kBK; k++) {
      for (int m = 0; m < kTM; m++) ra[m] = As[k][(m / 4) * 64 + trow * 4 + m % 4];
      for (int j = 0; j < kTN; j++) rb[j] = Bs[k][(j / 4) * 64 + tcol * 4 + j % 4];
      for (int m = 0; m < kTM; m++)
        for (int j = 0; j < kTN; j++) acc[m][j] = fmaf(ra[m], rb[j], acc[m][j]);
    }
    __syncthreads();
  }
  for (int m = 0; m < kTM; m++) {
    int r = row0 + (m / 4) * 64 + trow * 4 + m % 4;
    for (int j = 0; j < kTN; j++) C[r * n + col0 + (j / 4) * 64 + tcol * 4 + j % 4] = acc[m][j];
  }
}

// 5. Histogram: 256 bins in shared memory, then one global atomic per non-empty bin.
__global__ void __launch_bounds__(kHistBlock) histogram(const uint8_t* x, long long n, unsigned* hist) {
  __shared__ unsigned sh[kBins];
  for (unsigned b = threadIdx.x; b < kBins; b += kHistBlock) sh[b] = 0;
  __syncthreads();
  long long stride = (long long)gridDim.x * kHistBlock;
  for (long long i = (long long)blockIdx.x * kHistBlock + threadIdx.x; i < n; i += stride)
    atomicAdd(&sh[x[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += kHistBlock) {
    unsigned c = sh[b];
    if (c != 0) atomicAdd(&hist[b], c);
  }
}

// 6. Transpose through a padded 32×33 shared tile; 32×8 threads, 4 rows each.
__global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * kTile + tx;
  int y = blockIdx.y * kTile + ty;
  for (int j = 0; j < kTile; j += kTileRows) tile[ty + j][tx] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + tx;
  y = blockIdx.x * kTile + ty;
  for (int j = 0; j < kTile; j += kTileRows) out[(y + j) * n + x] = tile[tx][ty + j];
}

// 7. 5-point stencil, zero outside the grid: each block of 32×8 threads computes a 32×32
// tile, 4 rows per thread, from a 34×34 shared tile with halo. Whole warps load the halo
// (warp-uniform branches: row above, row below, left column, right column), so no warp
// waits on a one-lane load; a one-point-per-thread 32×8 version ran at 48% of copy.
__global__ void stencil5(const float* in, float* out, int nx, int ny) {
  __shared__ float t[kStTile + 2][kStTile + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * kStTile, y0 = blockIdx.y * kStTile, x = x0 + tx;
  for (int r = 0; r < kStTile; r += kStRows) t[ty + r + 1][tx + 1] = in[(y0 + ty + r) * nx + x];
  if (ty == 0) t[0][tx + 1] = y0 > 0 ? in[(y0 - 1) * nx + x] : 0.0f;
  if (ty == 1) t[kStTile + 1][tx + 1] = y0 + kStTile < ny ? in[(y0 + kStTile) * nx + x] : 0.0f;
  if (ty == 2) t[tx + 1][0] = x0 > 0 ? in[(y0 + tx) * nx + x0 - 1] : 0.0f;
  if (ty == 3) t[tx + 1][kStTile + 1] = x0 + kStTile < nx ? in[(y0 + tx) * nx + x0 + kStTile] : 0.0f;
  __syncthreads();
  for (int r = 0; r < kStTile; r += kStRows) {
    int ly = ty + r + 1;
    float around = (t[ly - 1][tx + 1] + t[ly + 1][tx + 1]) + (t[ly][tx] + t[ly][tx + 2]);
    out[(y0 + ty + r) * nx + x] = 0.5f * t[ly][tx + 1] + 0.125f * around;
  }
}

// 8. Scans. Block-wide inclusive scan of one value per thread: shuffle-up within each
// warp, the warp totals scanned by warp 0 through shared memory. Returns the thread's
// inclusive prefix and sets *total to the block's sum. The block: kThreads threads, or
// blockDim.x when kThreads is 0; a multiple of 32.
template <unsigned kThreads = 0>
__device__ unsigned block_scan(unsigned v, unsigned* warp_sums, unsigned* total) {
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned nwarps = (kThreads ? kThreads : blockDim.x) / 32;
  for (unsigned d = 1; d < 32; d <<= 1) {
    unsigned u = __shfl_up_sync(kFull, v, d);
    if (lane >= d) v += u;
  }
  if (lane == 31) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    unsigned w = lane < nwarps ? warp_sums[lane] : 0;
    for (unsigned d = 1; d < 32; d <<= 1) {
      unsigned u = __shfl_up_sync(kFull, w, d);
      if (lane >= d) w += u;
    }
    warp_sums[lane] = w;
  }
  __syncthreads();
  unsigned prefix = warp > 0 ? warp_sums[warp - 1] : 0;
  *total = warp_sums[nwarps - 1];
  __syncthreads();  // warp_sums is reused by the next call
  return v + prefix;
}

// 8a. Each block scans its kScanBlock consecutive elements.
__global__ void __launch_bounds__(kScanBlock) scan_block(const unsigned* x, unsigned* out) {
  __shared__ unsigned warp_sums[32];
  long long i = (long long)blockIdx.x * kScanBlock + threadIdx.x;
  unsigned total;
  out[i] = block_scan<kScanBlock>(x[i], warp_sums, &total);
}

// 8b. Multi-block inclusive scan, reduce-then-scan over tiles of kScanItems·kScanBlock
// elements: (1) each block's tile total, (2) one block turns the totals into exclusive
// prefixes, (3) each block scans its tile from its prefix.
__global__ void __launch_bounds__(kScanBlock) scan_reduce(const unsigned* x, unsigned* block_sums) {
  __shared__ unsigned warp_sums[32];
  long long base = (long long)blockIdx.x * kScanBlock * kScanItems;
  unsigned v = 0;
  for (int k = 0; k < kScanItems; k++) v += x[base + (long long)k * kScanBlock + threadIdx.x];
  unsigned total;
  block_scan<kScanBlock>(v, warp_sums, &total);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

__global__ void scan_sums(unsigned* block_sums, int nb) {
  __shared__ unsigned warp_sums[32];
  unsigned carry = 0;
  for (int k = 0; k < nb; k += blockDim.x) {
    int i = k + threadIdx.x;
    unsigned v = i < nb ? block_sums[i] : 0;
    unsigned total;
    unsigned s = block_scan(v, warp_sums, &total);
    if (i < nb) block_sums[i] = carry + s - v;
    carry += total;
  }
}

__global__ void __launch_bounds__(kScanBlock) scan_downsweep(const unsigned* x, const unsigned* block_prefix, unsigned* out) {
  __shared__ unsigned warp_sums[32];
  long long base = (long long)blockIdx.x * kScanBlock * kScanItems;
  unsigned carry = block_prefix[blockIdx.x];
  for (int k = 0; k < kScanItems; k++) {
    long long i = base + (long long)k * kScanBlock + threadIdx.x;
    unsigned v = x[i];
    unsigned total;
    unsigned s = block_scan<kScanBlock>(v, warp_sums, &total);
    out[i] = carry + s;
    carry += total;
  }
}

// 9. Monte-Carlo π with xoroshiro128+ as cudajit::random has it (Numba's seeding and
// streams, two u64 words per state in global memory, read and written by every draw;
// the f32 draw is the top 24 bits, where Numba rounds a 53-bit double to float).
__device__ __forceinline__ uint64_t rotl(uint64_t x, unsigned k) {
  return (x << k) | (x >> (64 - k));
}
__device__ __forceinline__ uint64_t xoroshiro128p_next(uint64_t* states, long long index) {
  uint64_t s0 = states[2 * index], s1 = states[2 * index + 1];
  uint64_t result = s0 + s1;
  s1 ^= s0;
  states[2 * index] = rotl(s0, 55) ^ s1 ^ (s1 << 14);
  states[2 * index + 1] = rotl(s1, 36);
  return result;
}
__device__ __forceinline__ float xoroshiro128p_uniform_float32(uint64_t* states, long long index) {
  return (float)(xoroshiro128p_next(states, index) >> 40) * (1.0f / 16777216.0f);
}

__global__ void __launch_bounds__(kPiBlock) monte_carlo_pi(uint64_t* states, int iters, unsigned* hits) {
  __shared__ unsigned warp_sums[32];
  long long id = (long long)blockIdx.x * kPiBlock + threadIdx.x;
  unsigned count = 0;
  for (int k = 0; k < iters; k++) {
    float x = xoroshiro128p_uniform_float32(states, id);
    float y = xoroshiro128p_uniform_float32(states, id);
    if (x * x + y * y <= 1.0f) count += 1;
  }
  for (unsigned off = 16; off > 0; off >>= 1) count += __shfl_down_sync(kFull, count, off);
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = count;
  __syncthreads();
  if (warp == 0) {
    count = lane < kPiBlock / 32 ? warp_sums[lane] : 0;
    for (unsigned off = 16; off > 0; off >>= 1) count += __shfl_down_sync(kFull, count, off);
    if (lane == 0) atomicAdd(hits, count);
  }
}

// 10. Two-phase sum through a grid-wide barrier (cooperative launch): each block writes
// its partial sum, the grid syncs, block 0 sums the partials. Block sums by a tree in
// dynamic shared memory (blockDim.x floats, blockDim.x a power of two).
__device__ float block_sum_tree(float v, float* sm) {
  unsigned tid = threadIdx.x;
  sm[tid] = v;
  __syncthreads();
  unsigned s = blockDim.x / 2;
  while (s > 0) {
    if (tid < s) sm[tid] += sm[tid + s];
    __syncthreads();
    s >>= 1;
  }
  float total = sm[0];
  __syncthreads();  // sm is reused by the next call
  return total;
}

__global__ void grid_sync_sum(const float* x, long long n, float* partial, float* out) {
  extern __shared__ float sm[];
  long long stride = (long long)gridDim.x * blockDim.x;
  float v = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    v += x[i];
  v = block_sum_tree(v, sm);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
  cg::this_grid().sync();
  if (blockIdx.x == 0) {
    float w = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) w += partial[b];
    w = block_sum_tree(w, sm);
    if (threadIdx.x == 0) out[0] = w;
  }
}

// 11. N-body all-pairs, one step (issue 9), over Body structs (28 bytes: bench/simt.rs's
// `Body`): each thread owns one body and sums the softened pull of every body on it with
// rsqrtf, 256 bodies at a time through a shared tile of positions and masses (the tiling
// of NVIDIA's nbody sample; the block is the tile), then integrates. A ragged last tile
// is padded with massless bodies, which pull with exactly zero. Every multiply-add is an
// explicit fmaf, as cudajit's mul_add and Numba's cuda.fma: nothing left to contract.
struct Vec3 {
  float x, y, z;
};
struct Body {
  Vec3 pos, vel;
  float mass;
};

__global__ void nbody(const Body* bodies, Body* next, int n, float dt, float softening2) {
  __shared__ __align__(16) float tile[kNbodyBlock][4];  // cudajit aligns shared arrays so
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  Body me = bodies[i < n ? i : n - 1];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += kNbodyBlock) {
    int j = base + tid;
    if (j < n) {
      Body b = bodies[j];
      tile[tid][0] = b.pos.x;
      tile[tid][1] = b.pos.y;
      tile[tid][2] = b.pos.z;
      tile[tid][3] = b.mass;
    } else {
      tile[tid][0] = 0.0f;
      tile[tid][1] = 0.0f;
      tile[tid][2] = 0.0f;
      tile[tid][3] = 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kNbodyBlock; k++) {
      float dx = tile[k][0] - me.pos.x;
      float dy = tile[k][1] - me.pos.y;
      float dz = tile[k][2] - me.pos.z;
      float d2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, softening2)));
      float inv = rsqrtf(d2);
      float s = tile[k][3] * (inv * inv * inv);
      ax = fmaf(dx, s, ax);
      ay = fmaf(dy, s, ay);
      az = fmaf(dz, s, az);
    }
    __syncthreads();
  }
  if (i < n) {
    Body out;
    out.vel.x = fmaf(ax, dt, me.vel.x);
    out.vel.y = fmaf(ay, dt, me.vel.y);
    out.vel.z = fmaf(az, dt, me.vel.z);
    out.pos.x = fmaf(out.vel.x, dt, me.pos.x);
    out.pos.y = fmaf(out.vel.y, dt, me.pos.y);
    out.pos.z = fmaf(out.vel.z, dt, me.pos.z);
    out.mass = me.mass;
    next[i] = out;
  }
}

// 12. Black-Scholes (issue 9): European call and put, one option per thread, one
// template for float and double (cudajit's is one generic kernel, Numba's one factory).
// The overloads pick the float or double libdevice function; every multiply-add is an
// explicit fma, as in the other two.
__device__ __forceinline__ float dev_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double dev_fma(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float dev_abs(float a) { return fabsf(a); }
__device__ __forceinline__ double dev_abs(double a) { return fabs(a); }
__device__ __forceinline__ float dev_exp(float a) { return expf(a); }
__device__ __forceinline__ double dev_exp(double a) { return exp(a); }
__device__ __forceinline__ float dev_log(float a) { return logf(a); }
__device__ __forceinline__ double dev_log(double a) { return log(a); }
__device__ __forceinline__ float dev_sqrt(float a) { return sqrtf(a); }
__device__ __forceinline__ double dev_sqrt(double a) { return sqrt(a); }

template <class T>
__device__ T cnd(T d) {
  T k = T(1) / dev_fma(T(kCndK), dev_abs(d), T(1));
  T poly = k * dev_fma(k, dev_fma(k, dev_fma(k, dev_fma(k, T(kCndA5), T(kCndA4)), T(kCndA3)),
                                  T(kCndA2)),
                       T(kCndA1));
  T tail = T(kRsqrt2Pi) * dev_exp(T(-0.5) * d * d) * poly;
  return d > T(0) ? T(1) - tail : tail;
}

template <class T>
__global__ void black_scholes(const T* price, const T* strike, const T* years, T rate,
                              T volatility, T* call, T* put, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T s = price[i], x = strike[i], t = years[i];
    T sqrt_t = dev_sqrt(t);
    T drift = dev_fma(T(0.5) * volatility, volatility, rate);
    T d1 = dev_fma(drift, t, dev_log(s / x)) / (volatility * sqrt_t);
    T d2 = dev_fma(-volatility, sqrt_t, d1);
    T cnd1 = cnd(d1), cnd2 = cnd(d2);
    T discount = x * dev_exp(-rate * t);
    call[i] = dev_fma(s, cnd1, -discount * cnd2);
    put[i] = dev_fma(discount, T(1) - cnd2, -s * (T(1) - cnd1));
  }
}

// =====================================================================================
// Host side: timing, references, reporting
// =====================================================================================

static cudaStream_t g_stream;
static const int kWarmup = 5;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Median µs of `reps` runs of `body` (each between its own events, after `before`,
// which is not timed), after kWarmup untimed runs.
template <class Before, class Body>
static double time_us(int reps, Before before, Body body) {
  for (int i = 0; i < kWarmup; i++) {
    before();
    body();
  }
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(g_stream));
  std::vector<cudaEvent_t> start(reps), stop(reps);
  for (int i = 0; i < reps; i++) {
    CHECK(cudaEventCreate(&start[i]));
    CHECK(cudaEventCreate(&stop[i]));
  }
  for (int i = 0; i < reps; i++) {
    before();
    CHECK(cudaEventRecord(start[i], g_stream));
    body();
    CHECK(cudaEventRecord(stop[i], g_stream));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(g_stream));
  std::vector<double> us(reps);
  for (int i = 0; i < reps; i++) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
    us[i] = ms * 1e3;
    CHECK(cudaEventDestroy(start[i]));
    CHECK(cudaEventDestroy(stop[i]));
  }
  return median(us);
}

static void report(const char* kernel, double us, double bytes, double flops, int reps) {
  std::printf("RESULT %s.nvcc %.3f bytes=%.0f,flops=%.0f,reps=%d\n", kernel, us, bytes, flops,
              reps);
  std::fflush(stdout);
}

template <class T>
static T* to_device(const std::vector<T>& h) {
  T* d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
static std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaStreamSynchronize(g_stream));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <class T>
static T* poisoned(size_t n) {
  T* d;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  CHECK(cudaMemset(d, 0xff, n * sizeof(T)));  // NaN / all ones: every element must be written
  return d;
}

static bool close(double got, double want, double tol) { return std::fabs(got - want) <= tol; }

static void bench_copy() {
  float* a = to_device(unit_floats(kCopyN, 10));
  float* b = poisoned<float>(kCopyN);
  size_t bytes = kCopyN * sizeof(float);
  double us = time_us(50, [] {}, [&] {
    CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g_stream));
  });
  std::vector<float> h = to_host(b, kCopyN), want = unit_floats(kCopyN, 10);
  if (std::memcmp(h.data(), want.data(), bytes) != 0) fail("copy wrong");
  report("copy", us, 2.0 * bytes, 0, 50);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
}

static void bench_copy_kernel() {
  std::vector<float> h = signed_floats(kCopyN, 12);
  float* in = to_device(h);
  float* out = poisoned<float>(kCopyN);
  int blocks = (int)((kCopyN + kCopyBlock - 1) / kCopyBlock);
  auto body = [&] { copy_kernel<<<blocks, kCopyBlock, 0, g_stream>>>(in, out, kCopyN); };
  body();
  if (to_host(out, kCopyN) != h) fail("copy_kernel wrong");
  double us = time_us(50, [] {}, body);
  report("copy_kernel", us, 8.0 * kCopyN, 0, 50);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

static void bench_sum(bool warp) {
  const char* name = warp ? "sum_warp" : "sum_shared";
  std::vector<float> h = unit_floats(kSumN, 1);
  double want = 0;
  for (float v : h) want += v;
  float* x = to_device(h);
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  auto before = [&] { CHECK(cudaMemsetAsync(out, 0, sizeof(float), g_stream)); };
  auto body = [&] {
    if (warp)
      sum_warp<<<kSumGrid, kSumBlock, 0, g_stream>>>(x, kSumN, out);
    else
      sum_shared<<<kSumGrid, kSumBlock, 0, g_stream>>>(x, kSumN, out);
  };
  before();
  body();
  float got = to_host(out, 1)[0];
  // f32 atomics over 2048 partial sums of ~65536: far below 1e-4 of the total.
  if (!close(got, want, 1e-4 * want)) {
    std::fprintf(stderr, "%s: %.1f, want %.1f\n", name, got, want);
    fail("sum wrong");
  }
  double us = time_us(50, before, body);
  report(name, us, 4.0 * kSumN, kSumN, 50);
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
}

// Spot-checks n×n C = A·B at `samples` places against a double-precision dot product.
static void check_matmul(const std::vector<float>& A, const std::vector<float>& B,
                         const std::vector<float>& C, int n, const char* name) {
  for (int s = 0; s < 512; s++) {
    int r = (int)(mix(99, 2 * s) % n), c = (int)(mix(99, 2 * s + 1) % n);
    if (s == 0) r = 0, c = 0;
    if (s == 1) r = n - 1, c = n - 1;
    double want = 0;
    for (int k = 0; k < n; k++) want += (double)A[(size_t)r * n + k] * B[(size_t)k * n + c];
    double got = C[(size_t)r * n + c];
    // |terms| < 1 and n of them: f32 accumulation error well under 1e-5·n.
    if (!(std::fabs(got - want) <= 1e-5 * n)) {
      std::fprintf(stderr, "%s: C[%d][%d] = %g, want %g\n", name, r, c, got, want);
      fail("matmul wrong");
    }
  }
}

static void bench_fast_matmul() {
  int n = kMatN;
  size_t nn = (size_t)n * n;
  std::vector<float> ha = signed_floats(nn, 2), hb = signed_floats(nn, 3);
  float *a = to_device(ha), *b = to_device(hb), *c = poisoned<float>(nn);
  dim3 block(kTpb, kTpb), grid((n + kTpb - 1) / kTpb, (n + kTpb - 1) / kTpb);
  auto body = [&] { fast_matmul<<<grid, block, 0, g_stream>>>(a, b, c, n); };
  body();
  check_matmul(ha, hb, to_host(c, nn), n, "fast_matmul");
  double us = time_us(20, [] {}, body);
  report("fast_matmul", us, 3.0 * 4 * nn, 2.0 * n * nn, 20);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
}

static void bench_sgemm() {
  int n = kGemmN;
  size_t nn = (size_t)n * n;
  std::vector<float> ha = signed_floats(nn, 4), hb = signed_floats(nn, 5);
  float *a = to_device(ha), *b = to_device(hb), *c = poisoned<float>(nn);
  dim3 grid(n / kBN, n / kBM);
  auto body = [&] { sgemm<true><<<grid, kGemmThreads, 0, g_stream>>>(a, b, c, n); };
  body();
  check_matmul(ha, hb, to_host(c, nn), n, "sgemm");
  double us = time_us(20, [] {}, body);
  report("sgemm", us, 3.0 * 4 * nn, 2.0 * n * nn, 20);
  CHECK(cudaMemset(c, 0xff, nn * sizeof(float)));
  auto rolled = [&] { sgemm<false><<<grid, kGemmThreads, 0, g_stream>>>(a, b, c, n); };
  rolled();
  check_matmul(ha, hb, to_host(c, nn), n, "sgemm_rolled");
  us = time_us(20, [] {}, rolled);
  report("sgemm_rolled", us, 3.0 * 4 * nn, 2.0 * n * nn, 20);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
}

static void bench_histogram() {
  std::vector<uint8_t> h = bytes(kHistN, 6);
  std::vector<unsigned> want(kBins, 0);
  for (uint8_t v : h) want[v]++;
  uint8_t* x = to_device(h);
  unsigned* hist;
  CHECK(cudaMalloc(&hist, kBins * sizeof(unsigned)));
  auto before = [&] { CHECK(cudaMemsetAsync(hist, 0, kBins * sizeof(unsigned), g_stream)); };
  auto body = [&] { histogram<<<kHistGrid, kHistBlock, 0, g_stream>>>(x, kHistN, hist); };
  before();
  body();
  if (to_host(hist, kBins) != want) fail("histogram wrong");
  double us = time_us(50, before, body);
  report("histogram", us, (double)kHistN, 0, 50);
  CHECK(cudaFree(x));
  CHECK(cudaFree(hist));
}

static void bench_transpose() {
  int n = kTransN;
  size_t nn = (size_t)n * n;
  std::vector<float> h = signed_floats(nn, 7);
  float *in = to_device(h), *out = poisoned<float>(nn);
  dim3 grid(n / kTile, n / kTile), block(kTile, kTileRows);
  auto body = [&] { transpose<<<grid, block, 0, g_stream>>>(in, out, n); };
  body();
  std::vector<float> got = to_host(out, nn);
  for (size_t r = 0; r < (size_t)n; r++)
    for (size_t c = 0; c < (size_t)n; c++)
      if (got[r * n + c] != h[c * n + r]) fail("transpose wrong");
  double us = time_us(50, [] {}, body);
  report("transpose", us, 2.0 * 4 * nn, 0, 50);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

static void bench_stencil() {
  int n = kStencilN;
  size_t nn = (size_t)n * n;
  std::vector<float> h = signed_floats(nn, 8);
  float *in = to_device(h), *out = poisoned<float>(nn);
  dim3 grid(n / kStTile, n / kStTile), block(kStTile, kStRows);
  auto body = [&] { stencil5<<<grid, block, 0, g_stream>>>(in, out, n, n); };
  body();
  std::vector<float> got = to_host(out, nn);
  auto at = [&](long r, long c) -> double {
    return (r < 0 || c < 0 || r >= n || c >= n) ? 0.0 : (double)h[(size_t)r * n + c];
  };
  for (long r = 0; r < n; r++)
    for (long c = 0; c < n; c++) {
      double want =
          0.5 * at(r, c) + 0.125 * (at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1));
      if (!close(got[(size_t)r * n + c], want, 1e-6)) fail("stencil wrong");
    }
  double us = time_us(50, [] {}, body);
  report("stencil", us, 2.0 * 4 * nn, 6.0 * nn, 50);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

static void bench_scans() {
  std::vector<uint32_t> h = small_u32(kScanN, 9);
  unsigned *x = to_device(h), *out = poisoned<unsigned>(kScanN);
  // a. block-wide
  int blocks = (int)(kScanN / kScanBlock);
  auto block_body = [&] { scan_block<<<blocks, kScanBlock, 0, g_stream>>>(x, out); };
  block_body();
  {
    std::vector<unsigned> got = to_host(out, kScanN);
    unsigned run = 0;
    for (long long i = 0; i < kScanN; i++) {
      run = (i % kScanBlock == 0 ? 0 : run) + h[i];
      if (got[i] != run) fail("scan_block wrong");
    }
  }
  double us = time_us(50, [] {}, block_body);
  report("scan_block", us, 2.0 * 4 * kScanN, 0, 50);
  // b. multi-block
  CHECK(cudaMemset(out, 0xff, kScanN * sizeof(unsigned)));
  int tiles = (int)(kScanN / ((long long)kScanBlock * kScanItems));
  unsigned* sums;
  CHECK(cudaMalloc(&sums, tiles * sizeof(unsigned)));
  auto multi_body = [&] {
    scan_reduce<<<tiles, kScanBlock, 0, g_stream>>>(x, sums);
    scan_sums<<<1, kScanSumsBlock, 0, g_stream>>>(sums, tiles);
    scan_downsweep<<<tiles, kScanBlock, 0, g_stream>>>(x, sums, out);
  };
  multi_body();
  {
    std::vector<unsigned> got = to_host(out, kScanN);
    unsigned run = 0;
    for (long long i = 0; i < kScanN; i++) {
      run += h[i];
      if (got[i] != run) fail("scan_multi wrong");
    }
  }
  us = time_us(50, [] {}, multi_body);
  report("scan_multi", us, 3.0 * 4 * kScanN, 0, 50);
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
  CHECK(cudaFree(sums));
}

// Numba's create_xoroshiro128p_states on the host: state 0 from splitmix64(seed), each
// next state the previous one jumped ahead by 2^64 draws.
static uint64_t rotl_host(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }
static void next_host(uint64_t& s0, uint64_t& s1) {
  uint64_t a = s0, b = s1 ^ a;
  s0 = rotl_host(a, 55) ^ b ^ (b << 14);
  s1 = rotl_host(b, 36);
}
static std::vector<uint64_t> xoroshiro_states(size_t n, uint64_t seed) {
  std::vector<uint64_t> st(2 * n);
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  uint64_t s0 = z, s1 = z;
  const uint64_t jump[2] = {0xbeac0467eba5facbULL, 0xd86b048b86aa9922ULL};
  for (size_t i = 0; i < n; i++) {
    st[2 * i] = s0;
    st[2 * i + 1] = s1;
    uint64_t t0 = 0, t1 = 0;
    for (int w = 0; w < 2; w++)
      for (int b = 0; b < 64; b++) {
        if (jump[w] & (1ULL << b)) {
          t0 ^= s0;
          t1 ^= s1;
        }
        next_host(s0, s1);
      }
    s0 = t0;
    s1 = t1;
  }
  return st;
}

static void bench_pi() {
  size_t threads = (size_t)kPiGrid * kPiBlock;
  std::vector<uint64_t> init = xoroshiro_states(threads, kPiSeed);
  uint64_t* states = to_device(init);
  unsigned* hits;
  CHECK(cudaMalloc(&hits, sizeof(unsigned)));
  // Each run continues the streams where the last one stopped (as Numba's do).
  auto before = [&] { CHECK(cudaMemsetAsync(hits, 0, sizeof(unsigned), g_stream)); };
  auto body = [&] { monte_carlo_pi<<<kPiGrid, kPiBlock, 0, g_stream>>>(states, kPiIters, hits); };
  before();
  body();
  double samples = (double)threads * kPiIters;
  double pi = 4.0 * to_host(hits, 1)[0] / samples;
  // 2^28 samples: the standard error of the estimate is 1e-4.
  if (!close(pi, M_PI, 1e-3)) {
    std::fprintf(stderr, "pi = %.6f\n", pi);
    fail("monte_carlo_pi wrong");
  }
  std::printf("monte_carlo_pi.nvcc estimate %.6f\n", pi);
  double us = time_us(50, before, body);
  report("monte_carlo_pi", us, 2.0 * 16 * threads, samples, 50);
  CHECK(cudaFree(states));
  CHECK(cudaFree(hits));
}

static void bench_grid_sync() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sync_sum, kGsBlock, kGsShared));
  int grid = kGsBlocksPerSm * sms;
  if (per_sm < kGsBlocksPerSm) fail("grid_sync_sum: the grid cannot be co-resident");
  std::vector<float> h = unit_floats(kGsN, 11);
  double want = 0;
  for (float v : h) want += v;
  float* x = to_device(h);
  float *partial, *out = poisoned<float>(1);
  CHECK(cudaMalloc(&partial, grid * sizeof(float)));
  long long n = kGsN;
  auto body = [&] {
    void* args[] = {&x, &n, &partial, &out};
    CHECK(cudaLaunchCooperativeKernel((void*)grid_sync_sum, grid, kGsBlock, args, kGsShared,
                                      g_stream));
  };
  body();
  float got = to_host(out, 1)[0];
  if (!close(got, want, 1e-4 * want)) {
    std::fprintf(stderr, "grid_sync_sum: %.1f, want %.1f\n", got, want);
    fail("grid_sync_sum wrong");
  }
  double us = time_us(50, [] {}, body);
  std::printf("RESULT grid_sync.nvcc %.3f bytes=%.0f,flops=%.0f,reps=50,grid=%d\n", us,
              4.0 * kGsN, (double)kGsN, grid);
  CHECK(cudaFree(x));
  CHECK(cudaFree(partial));
  CHECK(cudaFree(out));
}

// The bodies: positions in [-10, 10)^3, velocities in [-1, 1)^3, masses in [0.5, 2).
static std::vector<Body> nbody_inputs(size_t n) {
  std::vector<float> px = signed_floats(n, 21), py = signed_floats(n, 22), pz = signed_floats(n, 23);
  std::vector<float> vx = signed_floats(n, 24), vy = signed_floats(n, 25), vz = signed_floats(n, 26);
  std::vector<float> m = unit_floats(n, 27);
  std::vector<Body> b(n);
  for (size_t i = 0; i < n; i++) {
    b[i].pos = {10.0f * px[i], 10.0f * py[i], 10.0f * pz[i]};
    b[i].vel = {vx[i], vy[i], vz[i]};
    b[i].mass = 0.5f + 1.5f * m[i];
  }
  return b;
}

// Spot-checks one step at 1024 bodies (the first and last among them) against an f64
// reference: f32 sums of 65536 terms with rsqrtf (2 ulp), within 1e-3 of the larger of
// a value and 1.
static void check_nbody(const std::vector<Body>& bodies, const std::vector<Body>& next) {
  size_t n = bodies.size();
  for (uint64_t s = 0; s < 1024; s++) {
    size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)(mix(98, s) % n);
    const Body& me = bodies[i];
    double acc[3] = {0, 0, 0};
    for (const Body& o : bodies) {
      double d[3] = {(double)o.pos.x - me.pos.x, (double)o.pos.y - me.pos.y,
                     (double)o.pos.z - me.pos.z};
      double inv = 1.0 / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + kNbodySoftening2);
      double sc = o.mass * inv * inv * inv;
      for (int k = 0; k < 3; k++) acc[k] += d[k] * sc;
    }
    double dt = kNbodyDt;
    double vel[3] = {me.vel.x + acc[0] * dt, me.vel.y + acc[1] * dt, me.vel.z + acc[2] * dt};
    double want[6] = {me.pos.x + vel[0] * dt, me.pos.y + vel[1] * dt, me.pos.z + vel[2] * dt,
                      vel[0], vel[1], vel[2]};
    const Body& g = next[i];
    float got[6] = {g.pos.x, g.pos.y, g.pos.z, g.vel.x, g.vel.y, g.vel.z};
    bool ok = std::memcmp(&g.mass, &me.mass, sizeof(float)) == 0;
    for (int k = 0; k < 6; k++) ok = ok && close(got[k], want[k], 1e-3 * std::max(std::fabs(want[k]), 1.0));
    if (!ok) {
      std::fprintf(stderr, "nbody: body %zu: vel (%g, %g, %g), want (%g, %g, %g)\n", i, g.vel.x,
                   g.vel.y, g.vel.z, vel[0], vel[1], vel[2]);
      fail("nbody wrong");
    }
  }
}

static void bench_nbody() {
  int n = kNbodyN;
  std::vector<Body> h = nbody_inputs(n);
  Body *bodies = to_device(h), *next = poisoned<Body>(n);
  int blocks = (n + kNbodyBlock - 1) / kNbodyBlock;
  auto body = [&] {
    nbody<<<blocks, kNbodyBlock, 0, g_stream>>>(bodies, next, n, kNbodyDt, kNbodySoftening2);
  };
  body();
  check_nbody(h, to_host(next, n));
  double us = time_us(20, [] {}, body);
  report("nbody", us, 2.0 * sizeof(Body) * n, kFlopsPerInteraction * n * (double)n, 20);
  CHECK(cudaFree(bodies));
  CHECK(cudaFree(next));
}

// (call, put) by the kernels' algorithm in plain double arithmetic.
static void black_scholes_reference(double s, double x, double t, double* call, double* put) {
  auto cnd = [](double d) {
    double k = 1.0 / (1.0 + kCndK * std::fabs(d));
    double poly = k * (kCndA1 + k * (kCndA2 + k * (kCndA3 + k * (kCndA4 + k * kCndA5))));
    double tail = kRsqrt2Pi * std::exp(-0.5 * d * d) * poly;
    return d > 0 ? 1.0 - tail : tail;
  };
  double sqrt_t = std::sqrt(t);
  double d1 = (std::log(s / x) + (kBsRate + 0.5 * kBsVolatility * kBsVolatility) * t) /
              (kBsVolatility * sqrt_t);
  double d2 = d1 - kBsVolatility * sqrt_t;
  double discount = x * std::exp(-kBsRate * t);
  *call = s * cnd(d1) - discount * cnd(d2);
  *put = discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1));
}

// The options: prices in [5, 30), strikes in [1, 100), years in [0.25, 10) (the CUDA
// SDK sample's ranges), the same f32 values for both precisions.
static std::vector<float> option_range(size_t n, uint64_t seed, float lo, float width) {
  std::vector<float> v = unit_floats(n, seed);
  for (float& u : v) u = lo + width * u;
  return v;
}

// One precision: launch, check every option within tol·(price + strike) of the
// reference, time.
template <class T>
static void bench_black_scholes_as(const char* name, double tol, const std::vector<float>& price,
                                   const std::vector<float>& strike, const std::vector<float>& years,
                                   const std::vector<double>& want_call,
                                   const std::vector<double>& want_put) {
  int n = kBsN;
  std::vector<T> hp(price.begin(), price.end()), hx(strike.begin(), strike.end()),
      ht(years.begin(), years.end());
  T *p = to_device(hp), *x = to_device(hx), *t = to_device(ht);
  T *call = poisoned<T>(n), *put = poisoned<T>(n);
  T rate = (T)kBsRate, vol = (T)kBsVolatility;
  int blocks = (n + kBsBlock - 1) / kBsBlock;
  auto body = [&] {
    black_scholes<T><<<blocks, kBsBlock, 0, g_stream>>>(p, x, t, rate, vol, call, put, n);
  };
  body();
  std::vector<T> c = to_host(call, n), q = to_host(put, n);
  for (int i = 0; i < n; i++) {
    double scale = tol * ((double)price[i] + strike[i]);
    if (!(close(c[i], want_call[i], scale) && close(q[i], want_put[i], scale))) {
      std::fprintf(stderr, "%s: option %d: call %g, put %g, want %g, %g\n", name, i, (double)c[i],
                   (double)q[i], want_call[i], want_put[i]);
      fail("black_scholes wrong");
    }
  }
  double us = time_us(50, [] {}, body);
  report(name, us, 5.0 * sizeof(T) * n, 0, 50);
  CHECK(cudaFree(p));
  CHECK(cudaFree(x));
  CHECK(cudaFree(t));
  CHECK(cudaFree(call));
  CHECK(cudaFree(put));
}

static void bench_black_scholes() {
  size_t n = kBsN;
  std::vector<float> price = option_range(n, 31, 5.0f, 25.0f),
                     strike = option_range(n, 32, 1.0f, 99.0f),
                     years = option_range(n, 33, 0.25f, 9.75f);
  std::vector<double> want_call(n), want_put(n);
  for (size_t i = 0; i < n; i++)
    black_scholes_reference(price[i], strike[i], years[i], &want_call[i], &want_put[i]);
  bench_black_scholes_as<float>("black_scholes_f32", 1e-5, price, strike, years, want_call,
                                want_put);
  bench_black_scholes_as<double>("black_scholes_f64", 1e-10, price, strike, years, want_call,
                                 want_put);
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device\n");
    return 0;
  }
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("simt nvcc: %s (sm_%d%d), %d SMs\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount);
  CHECK(cudaStreamCreate(&g_stream));
  auto want = [&](const char* name) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; i++)
      if (std::strcmp(argv[i], name) == 0) return true;
    return false;
  };
  struct Bench {
    const char* name;
    void (*run)();
  };
  const Bench benches[] = {
      {"copy", bench_copy},
      {"copy_kernel", bench_copy_kernel},
      {"sum_shared", [] { bench_sum(false); }},
      {"sum_warp", [] { bench_sum(true); }},
      {"fast_matmul", bench_fast_matmul},
      {"sgemm", bench_sgemm},
      {"histogram", bench_histogram},
      {"transpose", bench_transpose},
      {"stencil", bench_stencil},
      {"scan", bench_scans},
      {"monte_carlo_pi", bench_pi},
      {"grid_sync", bench_grid_sync},
      {"nbody", bench_nbody},
      {"black_scholes", bench_black_scholes},
  };
  int status = 0;
  for (const Bench& b : benches) {
    if (!want(b.name)) continue;
    try {
      b.run();
    } catch (const WrongResult& e) {
      std::fprintf(stderr, "simt_nvcc: %s: wrong result: %s\n", b.name, e.what.c_str());
      CHECK(cudaDeviceSynchronize());
      status = 1;
    }
  }
  CHECK(cudaStreamDestroy(g_stream));
  return status;
}
