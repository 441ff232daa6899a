//! The Hopper GEMM's kernels (bench/hopper_kernels.rs, issue 24) at test size on the CPU
//! simulator: 128×256 block tiles over six k-tiles, so the 4-stage ring wraps (the
//! producer waits on `empty`, the consumers on `full` of the second phase), on fresh
//! random inputs against an f64 reference. The simulator runs each TMA box copy through the map's 128B swizzle,
//! completes its bytes on the stage's mbarrier, runs each wgmma with the hardware's
//! descriptor and swizzle reading, and reports any pipeline race (a stage refilled while
//! a wgmma still reads it, a read before its copy landed) or an expect-tx count the
//! copies never complete, so a wrong barrier index, phase, box or swizzle fails here
//! before it reaches a GPU. All three kernels: the TMA producer, the same with
//! `setmaxnreg` (checked to be executed by whole warpgroups) launched persistent (one
//! block, two tiles), and the cp.async producer.

use cudajit::prelude::*;
use cudajit::{SimOptions, Stream, Swizzle, TensorMap, TensorMapOptions};

#[path = "../bench/hopper_kernels.rs"]
#[allow(dead_code, unused_imports, unused_macros)]
mod hopper_kernels;

use hopper_kernels::{checked, SHARED_BYTES, THREADS};

fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
fn signed(seed: u64, i: u64) -> f64 {
    (mix(seed, i) >> 40) as f64 / 8_388_608.0 - 1.0
}

/// A fresh seed per run (`CUDAJIT_TEST_SEED` repeats one), printed for the failure's
/// reproduction.
fn fresh_seed() -> u64 {
    let seed = std::env::var("CUDAJIT_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("CUDAJIT_TEST_SEED={seed}");
    seed
}

/// A and B of one problem on the simulator, as slices (the cp.async kernel's operands)
/// and as the TMA kernels' maps: 128B swizzle, boxes of the block tile's rows × 64.
struct Operands<'a> {
    a: &'a [bf16],
    b: &'a [bf16],
    map_a: TensorMap<'a, bf16, 2>,
    map_b: TensorMap<'a, bf16, 2>,
}

fn map(array: &DeviceArray<bf16>, rows: usize, k: usize, box_rows: u32) -> TensorMap<'_, bf16, 2> {
    let options = TensorMapOptions {
        swizzle: Swizzle::B128,
        ..TensorMapOptions::default()
    };
    let shape = [rows as u64, k as u64];
    TensorMap::with_strides(array, shape, [2 * k as u64, 2], [box_rows, 64], options).unwrap()
}

/// Runs `kernel` (one of `checked`'s) on an `m`×`n` C over six k-tiles and returns
/// ‖C − C_f64‖ / ‖C_f64‖, every element checked written.
fn gemm_error(
    (m, n): (usize, usize),
    launch: impl FnOnce(&Stream, &Operands, &mut [bf16], usize, usize, usize),
) -> f64 {
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    let k = 6 * 64;
    let seed = fresh_seed();
    let a: Vec<bf16> = (0..m * k)
        .map(|i| bf16::from_f64(signed(seed, i as u64)))
        .collect();
    let b: Vec<bf16> = (0..n * k)
        .map(|i| bf16::from_f64(signed(seed ^ 1, i as u64)))
        .collect();
    let (array_a, array_b) = (
        DeviceArray::from_slice_on(&device, &a).unwrap(),
        DeviceArray::from_slice_on(&device, &b).unwrap(),
    );
    let operands = Operands {
        a: &a,
        b: &b,
        map_a: map(&array_a, m, k, 128),
        map_b: map(&array_b, n, k, 256),
    };
    let mut c = vec![bf16::NAN; m * n];
    launch(&stream, &operands, &mut c, m, n, k);
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|p| a[i * k + p].to_f64() * b[j * k + p].to_f64())
                .sum();
            let got = c[i * n + j].to_f64();
            assert!(!got.is_nan(), "C[{i}][{j}] never written");
            diff2 += (got - want).powi(2);
            ref2 += want * want;
        }
    }
    (diff2 / ref2).sqrt()
}

// The output is rounded to bf16 (relative 2^-9); the sums are f32 at least.
const TOLERANCE: f64 = 4e-3;

/// A test that runs `checked::$kernel` on an `$m`×`$n` C in `$blocks` blocks with the A
/// and B operands that `|$ops| ($a, $b)` picks from `Operands`, and checks its error.
macro_rules! gemm_test {
    ($test:ident, $kernel:ident, ($m:expr, $n:expr), $blocks:expr, |$ops:ident| ($a:expr, $b:expr)) => {
        #[test]
        fn $test() {
            let error = gemm_error(($m, $n), |stream, $ops, c, m, n, k| {
                launch!(checked::$kernel[$blocks, THREADS, stream, SHARED_BYTES](
                    $a, $b, c, m, n, k
                ))
                .unwrap()
            });
            assert!(
                error < TOLERANCE,
                "{} error {error:.3e}",
                stringify!($kernel)
            );
        }
    };
}

// One block per 128×256 tile.
gemm_test!(
    tma_wgmma_gemm_matches_f64,
    gemm_bf16_tma,
    (128, 256),
    1,
    |ops| (&ops.map_a, &ops.map_b)
);
// Persistent: one block walks two tiles, so the ring's stages and phases run on from the
// first tile's six k-tiles into the second's, and the producer loads the
// second tile while the consumers store the first.
gemm_test!(
    persistent_tma_wgmma_gemm_with_setmaxnreg_matches_f64,
    gemm_bf16_tma_setmaxnreg,
    (128, 512),
    1,
    |ops| (&ops.map_a, &ops.map_b)
);
gemm_test!(
    cp_async_wgmma_gemm_matches_f64,
    gemm_bf16_wgmma,
    (128, 256),
    1,
    |ops| (ops.a, ops.b)
);
