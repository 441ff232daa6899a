//! What the Rust benchmarks share beyond timing (bench/stats.rs): the inputs the nvcc
//! twins draw too (splitmix64 of (seed, index)), the attention f64 reference, and the
//! 128B-swizzled bf16 tensor map of the Hopper kernels. Each bench includes this file as
//! `mod common` and uses what it needs.
#![allow(dead_code)] // not every bench uses every helper

use cudajit::{bf16, DeviceArray, L2Promotion, Swizzle, TensorMap, TensorMapOptions};

/// splitmix64 of (seed, index): the twins' `mix`.
pub fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [-1, 1) with 24 random bits, rounded to bf16 (the twins' `fill`).
pub fn input(seed: u64, i: u64) -> bf16 {
    bf16::from_f32((mix(seed, i) >> 40) as f32 * (1.0 / 8_388_608.0) - 1.0)
}

/// ‖got − ref‖ / ‖ref‖ of attention's O over 4 rows of each of 4 heads (the same heads
/// and rows as the twins' check), in f64: Q, K, V, O are `[heads][seq][d]` row-major,
/// softmax(Q Kᵀ / √d) V.
pub fn attention_error(
    (q, k, v, o): (&[bf16], &[bf16], &[bf16], &[bf16]),
    heads: usize,
    seq: usize,
    d: usize,
) -> f64 {
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for sh in 0..4 {
        let head = (mix(7, sh) % heads as u64) as usize * seq * d;
        for sr in 0..4 {
            let row = (mix(8, sh * 4 + sr) % seq as u64) as usize;
            let mut scores: Vec<f64> = (0..seq)
                .map(|j| {
                    (0..d)
                        .map(|x| q[head + row * d + x].to_f64() * k[head + j * d + x].to_f64())
                        .sum::<f64>()
                        / (d as f64).sqrt()
                })
                .collect();
            let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            scores.iter_mut().for_each(|s| *s = (*s - top).exp());
            let total: f64 = scores.iter().sum();
            for x in 0..d {
                let want = (0..seq)
                    .map(|j| scores[j] * v[head + j * d + x].to_f64())
                    .sum::<f64>()
                    / total;
                let diff = o[head + row * d + x].to_f64() - want;
                diff2 += diff * diff;
                ref2 += want * want;
            }
        }
    }
    (diff2 / ref2).sqrt()
}

/// The map of a `rows × cols` row-major bf16 array with boxes of `box_rows × 64`, 128B
/// swizzle and 256-byte L2 promotion (the Hopper kernels' stages; the twins' `tensor_map`).
pub fn swizzled_map(
    array: &DeviceArray<bf16>,
    rows: usize,
    cols: usize,
    box_rows: usize,
) -> cudajit::Result<TensorMap<'_, bf16, 2>> {
    let options = TensorMapOptions {
        swizzle: Swizzle::B128,
        l2_promotion: L2Promotion::B256,
        ..TensorMapOptions::default()
    };
    let shape = [rows as u64, cols as u64];
    TensorMap::with_strides(
        array,
        shape,
        [2 * cols as u64, 2],
        [box_rows as u32, 64],
        options,
    )
}
