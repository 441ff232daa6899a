//! The fp8 Hopper GEMM's cudajit kernel (issue 24): `C (bf16) = A·Bᵀ` with A (M×K) and B
//! (N×K) in OCP FP8 E4M3, K contiguous, through `wgmma.mma_async ... k32.f32.e4m3.e4m3`.
//! The bf16 benchmark's cp.async kernel over e4m3 (one macro, bench/hopper_cp_async_gemm.rs:
//! warp specialisation, a 4-stage ring of 128-byte-swizzled tiles, `full`/`empty`
//! mbarriers), and kernel for
//! kernel the algorithm of bench/cuda/hopper_fp8.cu; bench/hopper_fp8.rs times it against
//! that twin and cuBLASLt (`torch._scaled_mm`), tests/sim_hopper_fp8.rs runs it small on
//! the simulator against an f64 reference.
//!
//! A swizzled row is 128 bytes, so a k-tile is 128 e4m3 elements (64 bf16 ones): the
//! stage's bytes, its copies (16 bytes = 16 elements each) and the descriptors' byte
//! steps are the bf16 kernel's; only the element counts double. M a multiple of 128, N
//! of 256, K of 128 (the host asserts). One block of 384 threads computes one 128×256
//! tile of C:
//! - warpgroup 0 produces: it fills stage `s` (A 128×128 and B 256×128 e4m3, 16-byte chunk
//!   `j` of row `r` at `j ^ (r % 8)`) with cp.async and, two stages behind, waits for its
//!   own copies, fences them into the async proxy and arrives on `full[s]`; it waits on
//!   `empty[s]` before refilling a stage;
//! - warpgroups 1 and 2 consume: each owns 64 rows of the tile, waits on `full`, issues
//!   four m64n256k32 wgmmas per stage (one group), retires the group and releases the
//!   stage on `empty`.
//!
//! Shared memory (dynamic, 192 KiB + 64 bytes): the 4 A stages, the 4 B stages, then the
//! 8 barriers (`full[s]` at `s`, `empty[s]` at `4 + s`); the tiles start at multiples of
//! 1024 bytes, as the swizzle needs.

/// The bytes of dynamic shared memory a block needs.
pub const SHARED_BYTES: usize = 4 * (128 + 256) * 128 + 8 * 8;
/// Threads per block: one producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// The block tile (rows, columns) and the k-tile (elements).
pub const TILE: (usize, usize, usize) = (128, 256, 128);

include!("m64n256_accumulators.rs");
include!("hopper_cp_async_gemm.rs");

pub mod checked {
    use cudajit::prelude::*;
    with_m64n256_accumulators!(hopper_gemm_cp_async!(
        true,
        gemm_e4m3_wgmma,
        e4m3,
        16,
        wgmma_m64n256k32_f32_e4m3,
    ));
}

pub mod nocheck {
    use cudajit::prelude::*;
    with_m64n256_accumulators!(hopper_gemm_cp_async!(
        false,
        gemm_e4m3_wgmma,
        e4m3,
        16,
        wgmma_m64n256k32_f32_e4m3,
    ));
}
