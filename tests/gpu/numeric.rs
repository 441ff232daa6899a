//! The numeric methods on the GPU against std on the host, bit for bit (the GPU-only
//! approximate functions within their documented error), and `clamp`'s panics with
//! std's messages.

use super::common;
use cudajit::prelude::*;

const INT_FNS: usize = 12;

#[kernel]
fn integer_methods(a: &[i32], b: &[u32], n: &[u32], oa: &mut [i32], ob: &mut [u32]) {
    let i = grid(1);
    let len = a.len();
    if i < len {
        let (x, y, k) = (a[i], b[i], n[i]);
        oa[i] = x.count_ones() as i32;
        oa[len + i] = x.leading_zeros() as i32;
        oa[2 * len + i] = x.trailing_zeros() as i32;
        oa[3 * len + i] = x.rotate_left(k);
        oa[4 * len + i] = x.rotate_right(k);
        oa[5 * len + i] = x.swap_bytes();
        oa[6 * len + i] = x.reverse_bits();
        oa[7 * len + i] = x.wrapping_pow(k % 40);
        oa[8 * len + i] = x.saturating_add(y as i32);
        oa[9 * len + i] = x.saturating_sub(y as i32);
        oa[10 * len + i] = x.clamp(-1000, 1000);
        oa[11 * len + i] = mul_hi(x, y as i32);
        ob[i] = y.count_ones();
        ob[len + i] = y.leading_zeros();
        ob[2 * len + i] = y.trailing_zeros();
        ob[3 * len + i] = y.rotate_left(k);
        ob[4 * len + i] = y.rotate_right(k);
        ob[5 * len + i] = y.swap_bytes();
        ob[6 * len + i] = y.reverse_bits();
        ob[7 * len + i] = y.wrapping_pow(k % 40);
        ob[8 * len + i] = y.saturating_add(x as u32);
        ob[9 * len + i] = y.saturating_sub(x as u32);
        ob[10 * len + i] = y.clamp(1000, 4_000_000_000);
        ob[11 * len + i] = mul_hi(y, x as u32);
    }
}

/// std's results for one element, in the kernel's order.
fn integer_reference(x: i32, y: u32, k: u32) -> ([i32; INT_FNS], [u32; INT_FNS]) {
    let hi_i = ((x as i64 * y as i32 as i64) >> 32) as i32;
    let hi_u = ((y as u64 * x as u32 as u64) >> 32) as u32;
    (
        [
            x.count_ones() as i32,
            x.leading_zeros() as i32,
            x.trailing_zeros() as i32,
            x.rotate_left(k),
            x.rotate_right(k),
            x.swap_bytes(),
            x.reverse_bits(),
            x.wrapping_pow(k % 40),
            x.saturating_add(y as i32),
            x.saturating_sub(y as i32),
            x.clamp(-1000, 1000),
            hi_i,
        ],
        [
            y.count_ones(),
            y.leading_zeros(),
            y.trailing_zeros(),
            y.rotate_left(k),
            y.rotate_right(k),
            y.swap_bytes(),
            y.reverse_bits(),
            y.wrapping_pow(k % 40),
            y.saturating_add(x as u32),
            y.saturating_sub(x as u32),
            y.clamp(1000, 4_000_000_000),
            hi_u,
        ],
    )
}

#[test]
fn integer_methods_match_std() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("integer_methods");
    let len: usize = 8192;
    // Edge values first, then random ones (small ones too, so clamp and pow see
    // values inside their ranges).
    let edges = [0, 1, -1, i32::MIN, i32::MAX, 1000, -1000, 7];
    let a: Vec<i32> = (0..len)
        .map(|i| match i {
            i if i < edges.len() => edges[i],
            i if i % 3 == 0 => rng.below(4000) as i32 - 2000,
            _ => rng.next_u64() as i32,
        })
        .collect();
    let b: Vec<u32> = (0..len)
        .map(|i| {
            if i % 5 == 0 {
                rng.below(16) as u32
            } else {
                rng.next_u64() as u32
            }
        })
        .collect();
    let n: Vec<u32> = (0..len).map(|_| rng.below(200) as u32).collect();
    let mut oa = vec![i32::MIN; INT_FNS * len];
    let mut ob = vec![u32::MAX; INT_FNS * len];
    launch!(integer_methods[len / 128, 128](&a, &b, &n, &mut oa, &mut ob)).unwrap();
    for i in 0..len {
        let (wa, wb) = integer_reference(a[i], b[i], n[i]);
        for k in 0..INT_FNS {
            assert_eq!(
                oa[k * len + i],
                wa[k],
                "i32 method {k} of ({}, {}, {})",
                a[i],
                b[i],
                n[i]
            );
            assert_eq!(
                ob[k * len + i],
                wb[k],
                "u32 method {k} of ({}, {}, {})",
                a[i],
                b[i],
                n[i]
            );
        }
    }
}

#[kernel]
fn wide_and_narrow(a: &[i64], b: &[u8], oa: &mut [i64], ob: &mut [u8]) {
    let i = grid(1);
    let len = a.len();
    if i < len {
        let (x, y) = (a[i], b[i]);
        oa[i] = x.count_ones() as i64 + 100 * x.leading_zeros() as i64;
        oa[len + i] = x.rotate_left(y as u32) ^ x.swap_bytes() ^ x.reverse_bits();
        oa[2 * len + i] = x.saturating_add(x) + x.wrapping_pow(y as u32 % 70);
        oa[3 * len + i] = mul_hi(x, x >> 7);
        ob[i] = y.count_ones() as u8 + y.trailing_zeros() as u8 * 16;
        ob[len + i] = y.rotate_right(x as u32) ^ y.reverse_bits() ^ y.swap_bytes();
        ob[2 * len + i] = y.saturating_sub(100).saturating_add(y) ^ y.wrapping_pow(3);
        ob[3 * len + i] = y.clamp(20, 200);
    }
}

#[test]
fn sixty_four_and_eight_bit_methods_match_std() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("wide_and_narrow");
    let len: usize = 4096;
    let a: Vec<i64> = (0..len)
        .map(|_| rng.next_u64() as i64 >> rng.below(64))
        .collect();
    let b: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    let mut oa = vec![0i64; 4 * len];
    let mut ob = vec![0u8; 4 * len];
    launch!(wide_and_narrow[len / 128, 128](&a, &b, &mut oa, &mut ob)).unwrap();
    for i in 0..len {
        let (x, y) = (a[i], b[i]);
        let want_a = [
            x.count_ones() as i64 + 100 * x.leading_zeros() as i64,
            x.rotate_left(y as u32) ^ x.swap_bytes() ^ x.reverse_bits(),
            x.saturating_add(x)
                .wrapping_add(x.wrapping_pow(y as u32 % 70)),
            ((x as i128 * (x >> 7) as i128) >> 64) as i64,
        ];
        let want_b = [
            y.count_ones() as u8 + y.trailing_zeros() as u8 * 16,
            y.rotate_right(x as u32) ^ y.reverse_bits() ^ y.swap_bytes(),
            y.saturating_sub(100).saturating_add(y) ^ y.wrapping_pow(3),
            y.clamp(20, 200),
        ];
        for k in 0..4 {
            assert_eq!(oa[k * len + i], want_a[k], "i64 result {k} of {x}, {y}");
            assert_eq!(ob[k * len + i], want_b[k], "u8 result {k} of {x}, {y}");
        }
    }
}

#[kernel]
fn float_methods(x: &[f32], y: &[f64], ox: &mut [f32], oy: &mut [f64], bits: &mut [u64]) {
    let i = grid(1);
    let len = x.len();
    if i < len {
        let (a, b) = (x[i], y[i]);
        ox[i] = a.fract();
        ox[len + i] = a.clamp(-1.5, 2.5);
        ox[2 * len + i] = f32::from_bits(a.to_bits() ^ 0x8000_0000);
        ox[3 * len + i] = a.is_nan() as u32 as f32 + 2.0 * a.is_finite() as u32 as f32;
        oy[i] = b.fract();
        oy[len + i] = b.clamp(-1.5, 2.5);
        oy[2 * len + i] = f64::from_bits(b.to_bits() ^ 1);
        oy[3 * len + i] = b.is_nan() as u32 as f64 + 2.0 * b.is_finite() as u32 as f64;
        bits[i] = a.to_bits() as u64;
        bits[len + i] = b.to_bits();
    }
}

#[test]
fn float_methods_match_std_bit_for_bit() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("float_methods");
    let len: usize = 4096;
    let special32 = [
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        -2.75,
        1e30,
    ];
    let special64 = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
        -2.75,
        1e300,
    ];
    let x: Vec<f32> = (0..len)
        .map(|i| {
            special32
                .get(i)
                .copied()
                .unwrap_or_else(|| rng.f32_in(-5.0, 5.0))
        })
        .collect();
    let y: Vec<f64> = (0..len)
        .map(|i| {
            special64
                .get(i)
                .copied()
                .unwrap_or_else(|| rng.f64_in(-5.0, 5.0))
        })
        .collect();
    let mut ox = vec![f32::from_bits(0x7fc0_dead); 4 * len];
    let mut oy = vec![f64::from_bits(0x7ff8_dead_0000_0000); 4 * len];
    let mut bits = vec![u64::MAX; 2 * len];
    launch!(float_methods[len / 128, 128](&x, &y, &mut ox, &mut oy, &mut bits)).unwrap();
    let same32 = |g: f32, w: f32| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
    let same64 = |g: f64, w: f64| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
    for i in 0..len {
        let (a, b) = (x[i], y[i]);
        let wx = [
            a.fract(),
            a.clamp(-1.5, 2.5),
            f32::from_bits(a.to_bits() ^ 0x8000_0000),
            a.is_nan() as u32 as f32 + 2.0 * a.is_finite() as u32 as f32,
        ];
        let wy = [
            b.fract(),
            b.clamp(-1.5, 2.5),
            f64::from_bits(b.to_bits() ^ 1),
            b.is_nan() as u32 as f64 + 2.0 * b.is_finite() as u32 as f64,
        ];
        for k in 0..4 {
            assert!(
                same32(ox[k * len + i], wx[k]),
                "f32 method {k} of {a:?}: {} vs {}",
                ox[k * len + i],
                wx[k]
            );
            assert!(
                same64(oy[k * len + i], wy[k]),
                "f64 method {k} of {b:?}: {} vs {}",
                oy[k * len + i],
                wy[k]
            );
        }
        assert_eq!(bits[i], a.to_bits() as u64, "to_bits of {a:?}");
        assert_eq!(bits[len + i], b.to_bits(), "to_bits of {b:?}");
    }
}

#[kernel]
fn gpu_only_math(x: &[f32], y: &[f64], ox: &mut [f32], oy: &mut [f64]) {
    let i = grid(1);
    let len = x.len();
    if i < len {
        let a = x[i];
        ox[i] = rsqrt(a);
        ox[len + i] = fast_sin(a);
        ox[2 * len + i] = fast_cos(a);
        ox[3 * len + i] = fast_exp(a);
        ox[4 * len + i] = fast_log(a);
        ox[5 * len + i] = fast_powf(a, 1.75);
        ox[6 * len + i] = fast_div(a, 3.0);
        oy[i] = rsqrt(y[i]);
    }
}

#[test]
fn gpu_only_math_is_within_its_documented_error() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("gpu_only_math");
    let len: usize = 4096;
    // In (0.5, 2): inside every fast function's documented accuracy range.
    let x = rng.vec_f32(len, 0.5, 2.0);
    let y: Vec<f64> = (0..len).map(|_| rng.f64_in(0.5, 2.0)).collect();
    let mut ox = vec![f32::NAN; 7 * len];
    let mut oy = vec![f64::NAN; len];
    launch!(gpu_only_math[len / 128, 128](&x, &y, &mut ox, &mut oy)).unwrap();
    for i in 0..len {
        let a = x[i] as f64;
        let want = [
            1.0 / a.sqrt(),
            a.sin(),
            a.cos(),
            a.exp(),
            a.ln(),
            a.powf(1.75),
            a / 3.0,
        ];
        // rsqrtf: 2 ulp; __sinf/__cosf/__logf: 2^-21.4 absolute here; __expf, __powf
        // and __fdividef: a few ulp. 1e-5 relative or absolute covers them all.
        for (k, w) in want.into_iter().enumerate() {
            let got = ox[k * len + i] as f64;
            let err = (got - w).abs();
            assert!(
                err <= 1e-5 * w.abs().max(1.0),
                "function {k} of {a}: {got} vs {w}"
            );
        }
        let w = 1.0 / y[i].sqrt();
        assert!(
            (oy[i] - w).abs() <= 4.0 * f64::EPSILON * w,
            "rsqrt of {}: {} vs {w}",
            y[i],
            oy[i]
        );
    }
}

#[kernel]
fn clamp_bounds(x: &mut [i32], lo: &[i32], f: &mut [f32]) {
    let i = grid(1);
    if i == 0 {
        x[0] = x[0].clamp(lo[0], lo[1]);
        f[0] = f[0].clamp(-1.0, f[1]);
    }
}

#[test]
fn clamp_panics_with_std_messages() {
    let _gpu = require_gpu!();
    let mut x = vec![3i32];
    let mut f = vec![0.0f32, f32::NAN];
    let err = launch!(clamp_bounds[1, 32](&mut x, &[5, -1], &mut f))
        .unwrap_err()
        .to_string();
    assert!(err.contains("min > max. min = 5, max = -1"), "{err}");
    // Integers in order: the float clamp panics next, with std's `{:?}` of the bounds.
    let err = launch!(clamp_bounds[1, 32](&mut x, &[-1, 5], &mut f))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("min > max, or either was NaN. min = -1.0, max = NaN"),
        "{err}"
    );
    assert_eq!(x, [3]);
    f[1] = 0.5;
    f[0] = 9.0;
    launch!(clamp_bounds[1, 32](&mut x, &[-1, 5], &mut f)).unwrap();
    assert_eq!((x[0], f[0]), (3, 0.5));
}

/// Runs without a GPU: every kernel of this file lowers to NVVM IR as its first launch
/// will (the snapshot tests put the same constructs through libnvvm and ptxas).
#[test]
fn the_kernels_lower_to_nvvm_ir() {
    for source in [
        integer_methods::source(),
        wide_and_narrow::source(),
        float_methods::source(),
        gpu_only_math::source(),
        clamp_bounds::source(),
    ] {
        kernel_device::nvvm_ir_for_kernel(source, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", source.name));
    }
}
