// The nvcc twin of cudajit's fp8 Hopper GEMM (issue 24; bench/hopper_fp8_kernels.rs):
// C (bf16) = A·Bᵀ with A and B in e4m3 (OCP FP8), K-major, through a warp-specialised
// mbarrier pipeline feeding wgmma m64n256k32 e4m3, the same algorithm step for step: 384
// threads per 128×256 tile, warpgroup 0 fills a 4-stage ring of 128B-swizzled tiles
// (k-tiles of 128 e4m3 = 128 bytes a row) with cp.async (arriving on `full[s]` two stages
// behind, after its own copies landed and a proxy fence), warpgroups 1 and 2 each issue
// four m64n256k32 wgmmas per stage as one group, wait for it and release the stage on
// `empty`; grouped raster of 8 block rows; bf16 epilogue straight from the registers.
// The bf16 twin (bench/cuda/hopper_gemm.cu) with the element counts doubled.
//
// Built on the GPU machine by bench/run_hopper_fp8.sh: nvcc -O3 -std=c++17
// -gencode arch=compute_90a,code=sm_90a. Prints `RESULT gemm_e4m3_<n>.nvcc <median_us>
// flops=<n>,reps=<n>,error=<e>`. Inputs are splitmix64 of (seed, index), uniform in
// [-1, 1) rounded to e4m3 (RN, satfinite) as in bench/hopper_fp8.rs; each output checked
// written (poisoned first) and a 32×32 sample checked against an f64 reference from the
// decoded inputs.
//
//   hopper_fp8_nvcc [size ...]   (default: 4096 8192)
#include <string>

#include <cuda_fp8.h>

#include "hopper_common.cuh"

using fp8 = __nv_fp8_e4m3;

static const int kStages = 4, kThreads = 384;
static const size_t kShared = kStages * (128 + 256) * 128 + 8 * 8;

// The descriptor of a K-major tile with 128-byte swizzle: start address >> 4, leading 0,
// stride 1024 bytes (8 rows of 128) >> 4, mode 1 (128B) in bits 62..63.
__device__ __forceinline__ uint64_t descriptor(const fp8* p) {
  uint64_t addr = smem_addr(p);
  return ((addr & 0x3FFFF) >> 4) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}

// wgmma.mma_async m64n256k32 f32 += e4m3 · e4m3, A and B K-major from descriptors; the
// 128 accumulators tied in and out ("+f"), as cudajit's NVVM writer ties them. fp8
// operands are K-major only: no transpose immediates after the two scales.
__device__ __forceinline__ void wgmma_m64n256k32_e4m3(float (&d)[128], uint64_t desc_a,
                                                 uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, "
      "%8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, "
      "%40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, "
      "%72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, "
      "%88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, "
      "%104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, "
      "%120, %121, %122, %123, %124, %125, %126, %127},"
      " %128, %129, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(1)
      : "memory");
}

__global__ void __launch_bounds__(kThreads) gemm_e4m3_wgmma(const fp8* __restrict__ a,
                                                             const fp8* __restrict__ b,
                                                             bf16* __restrict__ c, int m, int n,
                                                             int k) {
  extern __shared__ __align__(1024) unsigned char smem[];
  fp8* ta = (fp8*)smem;
  fp8* tb = ta + kStages * 128 * 128;
  uint64_t* bars = (uint64_t*)(tb + kStages * 256 * 128);  // full[s] at s, empty[s] at 4 + s
  int t = threadIdx.x, wg = t / 128, tw = t % 128;
  int tiles_m = m / 128, per_group = 8 * (n / 256), pid = blockIdx.x;
  int first_m = (pid / per_group) * 8;
  int rows_here = min(tiles_m - first_m, 8);
  int row0 = (first_m + (pid % per_group) % rows_here) * 128;
  int col0 = ((pid % per_group) / rows_here) * 256;
  int ktiles = k / 128;
  if (t == 0) {
    for (int s = 0; s < kStages; s++) {
      mbar_init(&bars[s], 128);
      mbar_init(&bars[4 + s], 256);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {
    for (int kt = 0; kt < ktiles; kt++) {
      int s = kt % kStages;
      if (kt >= kStages) mbar_wait(&bars[4 + s], (kt / kStages - 1) % 2);
#pragma unroll
      for (int i = 0; i < 8; i++) {
        int q = tw + 128 * i, r = q / 8, j = q % 8;
        cp_async16(ta + s * 16384 + r * 128 + (j ^ (r % 8)) * 16,
                   a + (size_t)(row0 + r) * k + kt * 128 + j * 16);
      }
#pragma unroll
      for (int i = 0; i < 16; i++) {
        int q = tw + 128 * i, r = q / 8, j = q % 8;
        cp_async16(tb + s * 32768 + r * 128 + (j ^ (r % 8)) * 16,
                   b + (size_t)(col0 + r) * k + kt * 128 + j * 16);
      }
      cp_async_commit();
      if (kt >= 2) {
        cp_async_wait<2>();
        fence_proxy_async();
        mbar_arrive(&bars[(kt - 2) % kStages]);
      }
    }
    cp_async_wait<0>();
    fence_proxy_async();
    for (int kt = max(ktiles - 2, 0); kt < ktiles; kt++) mbar_arrive(&bars[kt % kStages]);
  } else {
    int cw = wg - 1;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++) d[i] = 0.0f;
    // Stage 0's descriptors; a stage's (16 KiB of A, 32 KiB of B) and a k-step's (32
    // bytes) add their byte offsets >> 4.
    uint64_t da0 = descriptor(ta + cw * 8192), db0 = descriptor(tb);
#pragma unroll 1
    for (int kt = 0; kt < ktiles; kt++) {
      int s = kt % kStages;
      mbar_wait(&bars[s], (kt / kStages) % 2);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ks++)
        wgmma_m64n256k32_e4m3(d, da0 + s * 1024 + ks * 2, db0 + s * 2048 + ks * 2);
      wgmma_commit();
      wgmma_wait<0>();
      mbar_arrive(&bars[4 + s]);
    }
    wgmma_wait<0>();
    int lane = tw % 32;
    int row = row0 + 64 * cw + 16 * (tw / 32) + lane / 4;
    int col = col0 + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < 128; i++) {
      int r = row + 8 * ((i / 2) % 2), cc = col + 8 * (i / 4) + i % 2;
      c[(size_t)r * n + cc] = __float2bfloat16_rn(d[i]);
    }
  }
}

// ---- inputs: hopper_common.cuh's numbers, rounded to e4m3 (as bench/hopper_fp8.rs)
__global__ void fill(fp8* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = fp8(input_f32(seed, i));  // RN, satfinite
}
static double input_f64_e4m3(uint64_t seed, uint64_t i) {
  return (double)(float)fp8(input_f32(seed, i));
}

static bool g_failed = false;

static void run(const char* impl, int n, const fp8* A, const fp8* B, bf16* C, int reps) {
  auto kernel = gemm_e4m3_wgmma;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kShared));
  int blocks = (n / 128) * (n / 256);
  size_t elems = (size_t)n * n;
  CHECK(cudaMemset(C, 0xff, elems * sizeof(bf16)));  // NaN
  kernel<<<blocks, kThreads, kShared>>>(A, B, C, n, n, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<bf16> got(elems);
  CHECK(cudaMemcpy(got.data(), C, elems * sizeof(bf16), cudaMemcpyDeviceToHost));
  size_t unwritten = 0;
  for (bf16 v : got) unwritten += !std::isfinite(__bfloat162float(v));
  double diff2 = 0, ref2 = 0;
  std::vector<double> arow(n);
  for (int si = 0; si < 32; si++) {
    int i = (int)(mix(5, si) % n);
    for (int p = 0; p < n; p++) arow[p] = input_f64_e4m3(11, (size_t)i * n + p);
    for (int sj = 0; sj < 32; sj++) {
      int j = (int)(mix(6, sj) % n);
      double want = 0;
      for (int p = 0; p < n; p++) want += arow[p] * input_f64_e4m3(22, (size_t)j * n + p);
      double diff = __bfloat162float(got[(size_t)i * n + j]) - want;
      diff2 += diff * diff;
      ref2 += want * want;
    }
  }
  double error = std::sqrt(diff2 / ref2);
  if (unwritten || !(error <= 1e-2)) {
    std::printf("WRONG gemm_e4m3_%d.%s: %zu unwritten, error %.3g\n", n, impl, unwritten, error);
    g_failed = true;
    return;
  }
  for (int i = 0; i < 3; i++) kernel<<<blocks, kThreads, kShared>>>(A, B, C, n, n, n);
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CHECK(cudaEventRecord(ev[2 * i]));
    kernel<<<blocks, kThreads, kShared>>>(A, B, C, n, n, n);
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
  double flops = 2.0 * n * (double)n * n, t = median(us);
  std::printf("RESULT gemm_e4m3_%d.%s %.3f flops=%.0f,reps=%d,error=%.3g\n", n, impl, t, flops,
              reps, error);
  std::printf("  gemm_e4m3_%-6d %-16s %10.1f us %8.1f TFLOP/s\n", n, impl, t, flops / t * 1e-6);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; i++) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {4096, 8192};
  for (int n : sizes) {
    if (n % 256) {
      std::printf("WRONG gemm_e4m3_%d: not a multiple of 256\n", n);
      g_failed = true;
      continue;
    }
    size_t elems = (size_t)n * n;
    fp8 *A, *B;
    bf16* C;
    CHECK(cudaMalloc(&A, elems * sizeof(fp8)));
    CHECK(cudaMalloc(&B, elems * sizeof(fp8)));
    CHECK(cudaMalloc(&C, elems * sizeof(bf16)));
    fill<<<1024, 256>>>(A, elems, 11);
    fill<<<1024, 256>>>(B, elems, 22);
    run("nvcc", n, A, B, C, n >= 8192 ? 20 : 50);
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
  }
  return g_failed ? 1 : 0;
}
