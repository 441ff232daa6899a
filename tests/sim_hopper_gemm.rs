//! The Hopper GEMM's kernels (bench/hopper_kernels.rs, issue 24) at test size on the CPU
//! simulator: one 128×256 block tile over six k-tiles, so the 4-stage ring wraps (the
//! producer waits on `empty`, the consumers on `full` of the second phase), against an
//! f64 reference. The simulator runs each TMA box copy through the map's 128B swizzle,
//! completes its bytes on the stage's mbarrier, runs each wgmma with the hardware's
//! descriptor and swizzle reading, and reports any pipeline race (a stage refilled while
//! a wgmma still reads it, a read before its copy landed) or an expect-tx count the
//! copies never complete, so a wrong barrier index, phase, box or swizzle fails here
//! before it reaches a GPU. All three kernels: the TMA producer, the same with
//! `setmaxnreg` (checked to be executed by whole warpgroups), and the cp.async producer.

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

/// A and B of one problem on the simulator, as slices (the cp.async kernel's operands)
/// and as the TMA kernels' maps: 128B swizzle, boxes of the block tile's rows × 64.
struct Operands<'a> {
    a: &'a [bf16],
    b: &'a [bf16],
    map_a: TensorMap<bf16, 2>,
    map_b: TensorMap<bf16, 2>,
}

fn map(device: &Device, host: &[bf16], rows: usize, k: usize, box_rows: u32) -> TensorMap<bf16, 2> {
    let array = DeviceArray::from_slice_on(device, host).unwrap();
    let options = TensorMapOptions {
        swizzle: Swizzle::B128,
        ..TensorMapOptions::default()
    };
    let shape = [rows as u64, k as u64];
    TensorMap::with_strides(&array, shape, [2 * k as u64, 2], [box_rows, 64], options).unwrap()
}

/// Runs `kernel` (one of `checked`'s) on one 128×256 tile over six k-tiles and returns
/// ‖C − C_f64‖ / ‖C_f64‖, every element checked written.
fn gemm_error(launch: impl FnOnce(&Stream, &Operands, &mut [bf16], usize, usize, usize)) -> f64 {
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    let (m, n, k) = (128, 256, 6 * 64);
    let a: Vec<bf16> = (0..m * k)
        .map(|i| bf16::from_f64(signed(1, i as u64)))
        .collect();
    let b: Vec<bf16> = (0..n * k)
        .map(|i| bf16::from_f64(signed(2, i as u64)))
        .collect();
    let operands = Operands {
        a: &a,
        b: &b,
        map_a: map(&device, &a, m, k, 128),
        map_b: map(&device, &b, n, k, 256),
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

/// A test that runs `checked::$kernel` on the tile with the A and B operands that
/// `|$ops| ($a, $b)` picks from `Operands`, and checks its error.
macro_rules! gemm_test {
    ($test:ident, $kernel:ident, |$ops:ident| ($a:expr, $b:expr)) => {
        #[test]
        fn $test() {
            let error = gemm_error(|stream, $ops, c, m, n, k| {
                let blocks = (m / 128) * (n / 256);
                launch!(checked::$kernel[blocks, THREADS, stream, SHARED_BYTES](
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

gemm_test!(tma_wgmma_gemm_matches_f64, gemm_bf16_tma, |ops| (
    &ops.map_a, &ops.map_b
));
gemm_test!(
    tma_wgmma_gemm_with_setmaxnreg_matches_f64,
    gemm_bf16_tma_setmaxnreg,
    |ops| (&ops.map_a, &ops.map_b)
);
gemm_test!(cp_async_wgmma_gemm_matches_f64, gemm_bf16_wgmma, |ops| (
    ops.a, ops.b
));
