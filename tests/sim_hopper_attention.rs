//! The FA3-structured attention kernels (bench/hopper_attention_kernels.rs, issue 24) at
//! test size on the CPU simulator, on fresh random inputs against an f64 reference: one
//! head of 384 keys (three K/V tiles, so the 2-stage ring wraps: the producer waits on
//! `kv_empty`, the consumers on the second phase of `k_full`/`v_full`), one block of 128
//! query rows. The simulator runs each TMA box through the map's 128B swizzle and
//! completes its bytes on the stage's mbarrier, each wgmma with the hardware's descriptor
//! reading (K-major Q and K, MN-major V, P from registers), and reports any pipeline
//! race (a stage refilled while a wgmma still reads it, a read before its copy landed),
//! so a wrong barrier, phase, box, descriptor or register packing fails here before it
//! reaches a GPU. The rows of the other query tiles must stay poisoned: the block writes
//! its own rows only.

use cudajit::prelude::*;
use cudajit::{SimOptions, Swizzle, TensorMap, TensorMapOptions};

#[path = "../bench/hopper_attention_kernels.rs"]
#[allow(dead_code, unused_imports, unused_macros)]
mod hopper_attention_kernels;

use hopper_attention_kernels::{checked, shared_bytes, BLOCK_ROWS, THREADS};

const SEQ: usize = 3 * 128;

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

/// The `SEQ × d` array's map, boxes of 128 rows × 64 columns with the 128B swizzle (what
/// the bench builds).
fn map(array: &DeviceArray<bf16>, d: usize) -> TensorMap<'_, bf16, 2> {
    let options = TensorMapOptions {
        swizzle: Swizzle::B128,
        ..TensorMapOptions::default()
    };
    let shape = [SEQ as u64, d as u64];
    TensorMap::with_strides(array, shape, [2 * d as u64, 2], [128, 64], options).unwrap()
}

/// Runs `launch` (one block: query rows 0..128 of one head of SEQ keys) and returns
/// ‖O − O_f64‖ / ‖O_f64‖ over those rows, every one of their elements checked written
/// and every other row checked untouched.
fn attention_error(
    d: usize,
    launch: impl FnOnce(&Stream, [&TensorMap<'_, bf16, 2>; 3], &mut [bf16], f32),
) -> f64 {
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    let seed = fresh_seed();
    let random = |salt: u64| -> Vec<bf16> {
        (0..SEQ * d)
            .map(|i| bf16::from_f64(signed(seed ^ salt, i as u64)))
            .collect()
    };
    let (q, k, v) = (random(0), random(1), random(2));
    let arrays = [&q, &k, &v].map(|host| DeviceArray::from_slice_on(&device, host).unwrap());
    let maps = arrays.each_ref().map(|array| map(array, d));
    let mut o = vec![bf16::NAN; SEQ * d];
    let scale_log2 = std::f32::consts::LOG2_E / (d as f32).sqrt();
    launch(&stream, [&maps[0], &maps[1], &maps[2]], &mut o, scale_log2);
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for row in 0..BLOCK_ROWS {
        let scores: Vec<f64> = (0..SEQ)
            .map(|j| {
                (0..d)
                    .map(|x| q[row * d + x].to_f64() * k[j * d + x].to_f64())
                    .sum::<f64>()
                    / (d as f64).sqrt()
            })
            .collect();
        let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
        let total: f64 = weights.iter().sum();
        for x in 0..d {
            let want = (0..SEQ)
                .map(|j| weights[j] * v[j * d + x].to_f64())
                .sum::<f64>()
                / total;
            let got = o[row * d + x].to_f64();
            assert!(!got.is_nan(), "O[{row}][{x}] never written");
            diff2 += (got - want).powi(2);
            ref2 += want * want;
        }
    }
    let stray = o[BLOCK_ROWS * d..].iter().filter(|x| !x.is_nan()).count();
    assert_eq!(stray, 0, "elements written outside the block's rows");
    (diff2 / ref2).sqrt()
}

// P is rounded to bf16 (relative 2^-9) before P·V, and O is stored as bf16.
const TOLERANCE: f64 = 1e-2;

macro_rules! attention_test {
    ($test:ident, $kernel:ident, d = $d:literal) => {
        #[test]
        fn $test() {
            let error = attention_error($d, |stream, [q, k, v], o, scale_log2| {
                launch!(checked::$kernel[(1, 1), THREADS, stream, shared_bytes($d)](
                    q, k, v, o, SEQ, scale_log2
                ))
                .unwrap()
            });
            assert!(error < TOLERANCE, "{} error {error:.3e}", stringify!($kernel));
        }
    };
}

attention_test!(fa3_attention_d128_matches_f64, attention_fa3_d128, d = 128);
attention_test!(fa3_attention_d64_matches_f64, attention_fa3_d64, d = 64);
