//! High-level operations (issue 12): reductions, scans, compaction and elementwise
//! maps from `#[device]` functions, each checked against a host reference on fresh
//! random inputs at the edge lengths (0, 1, 31, 32, 33, around the block of 256 and the
//! scan tile of 2048, 2^k ± 1; 2^28 only on a GPU), for several element types.

use super::common::Rng;
use cudajit::{device_fn, DeviceArray};

#[cudajit::device]
fn add_f32(a: f32, b: f32) -> f32 {
    a + b
}

#[cudajit::device]
fn max_i64(a: i64, b: i64) -> i64 {
    if a > b {
        a
    } else {
        b
    }
}

#[cudajit::device]
fn square(x: f64) -> f64 {
    x * x
}

#[cudajit::device]
pub(super) fn add_f64(a: f64, b: f64) -> f64 {
    a + b
}

#[cudajit::device]
fn widen(x: i32) -> i64 {
    x as i64
}

#[cudajit::device]
pub(super) fn add_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Associative but not commutative (identity 0): a scan must keep the input's order.
#[cudajit::device]
pub(super) fn first_nonzero(a: i32, b: i32) -> i32 {
    if a != 0 {
        a
    } else {
        b
    }
}

#[cudajit::device]
fn add_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

#[cudajit::device]
fn is_even(x: i32) -> bool {
    x % 2 == 0
}

#[cudajit::device]
fn positive(x: f32) -> bool {
    x > 0.0
}

#[cudajit::device]
fn axpy2(x: f32, y: f32) -> f32 {
    2.0 * x + y
}

#[cudajit::device]
fn halve(x: i32) -> f64 {
    x as f64 * 0.5
}

/// The lengths every operation is checked at on this device.
pub(super) fn lengths(device: &cudajit::Device) -> Vec<usize> {
    let mut all = vec![
        0,
        1,
        31,
        32,
        33,
        255,
        256,
        257,
        2047,
        2048,
        2049,
        (1 << 13) + 1,
    ];
    if !device.is_simulator() {
        all.extend([
            (1 << 16) - 1,
            (1 << 16) + 1,
            (1 << 20) + 1,
            1 << 24,
            1 << 28,
        ]);
    }
    // Under compute-sanitizer (racecheck runs kernels ~100x slower) the same kernels
    // run up to 2^20 + 1 elements, which still spans hundreds of scan tiles.
    if std::env::var_os("CUDAJIT_TEST_SANITIZER").is_some() {
        all.retain(|&n| n <= (1 << 20) + 1);
    }
    all
}

/// Small integers as f32: every partial sum is exact, so the result must be too.
/// The sum of `values` to within about one rounding of the exact sum (Neumaier's
/// compensated summation): the reference for f64 reductions, whose own error (a few
/// roundings per tree level) is far below a plain left-to-right host sum's at 2^28
/// elements (~1e-12 relative, more than the tolerance).
fn accurate_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut lost) = (0.0f64, 0.0f64);
    for v in values {
        let t = sum + v;
        lost += if sum.abs() >= v.abs() {
            (sum - t) + v
        } else {
            (v - t) + sum
        };
        sum = t;
    }
    sum + lost
}

fn small_f32(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.below(3) as f32 - 1.0).collect()
}

#[test]
fn sums_of_every_length_and_type() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl sums");
    for n in lengths(&device) {
        let x = small_f32(&mut rng, n);
        let want: f64 = x.iter().map(|&v| v as f64).sum();
        assert_eq!(cudajit::sum(&x).unwrap() as f64, want, "f32 sum, n = {n}");
        // The same through a user operator and a DeviceArray input.
        let dx = DeviceArray::from_slice(&x).unwrap();
        let got = cudajit::reduce(&dx, device_fn!(add_f32), 0.0).unwrap();
        assert_eq!(got as f64, want, "f32 reduce(add), n = {n}");

        let xi: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let want = xi.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        assert_eq!(cudajit::sum(&xi).unwrap(), want, "i32 sum, n = {n}");
        let want_min = xi.iter().copied().min().unwrap_or(i32::MAX);
        let want_max = xi.iter().copied().max().unwrap_or(i32::MIN);
        assert_eq!(cudajit::min(&xi).unwrap(), want_min, "i32 min, n = {n}");
        assert_eq!(cudajit::max(&xi).unwrap(), want_max, "i32 max, n = {n}");
        let want_prod = xi.iter().fold(1i32, |a, &b| a.wrapping_mul(b | 1));
        let odd: Vec<i32> = xi.iter().map(|&v| v | 1).collect();
        assert_eq!(
            cudajit::product(&odd).unwrap(),
            want_prod,
            "i32 product, n = {n}"
        );

        let xu: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let want = xu.iter().fold(0u64, |a, &b| a.wrapping_add(b));
        assert_eq!(cudajit::sum(&xu).unwrap(), want, "u64 sum, n = {n}");
        assert_eq!(
            cudajit::max(&xu).unwrap(),
            xu.iter().copied().max().unwrap_or(0),
            "u64 max, n = {n}"
        );

        let xd: Vec<f64> = (0..n).map(|_| rng.f64_in(-1.0, 1.0)).collect();
        let want = accurate_sum(xd.iter().copied());
        let scale: f64 = xd.iter().map(|v| v.abs()).sum::<f64>() + 1.0;
        let got = cudajit::sum(&xd).unwrap();
        assert!(
            (got - want).abs() <= 1e-12 * scale,
            "f64 sum, n = {n}: {got} vs {want}"
        );
        let want_min = xd.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(cudajit::min(&xd).unwrap(), want_min, "f64 min, n = {n}");
    }
}

#[test]
fn user_reductions_and_map_reduce() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl map_reduce");
    for n in lengths(&device) {
        let x: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        let want = x.iter().copied().max().unwrap_or(i64::MIN);
        let got = cudajit::reduce(&x, device_fn!(max_i64), i64::MIN).unwrap();
        assert_eq!(got, want, "reduce(max_i64), n = {n}");

        let xd: Vec<f64> = (0..n).map(|_| rng.f64_in(-2.0, 2.0)).collect();
        let want = accurate_sum(xd.iter().map(|v| v * v));
        let got = cudajit::map_reduce(&xd, device_fn!(square), device_fn!(add_f64), 0.0).unwrap();
        assert!(
            (got - want).abs() <= 1e-12 * (want + 1.0),
            "map_reduce(square, add), n = {n}: {got} vs {want}"
        );

        // A map that changes the type: i32 widened to i64 before the sum.
        let xi: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let want: i64 = xi.iter().map(|&v| v as i64).sum();
        let got = cudajit::map_reduce(&xi, device_fn!(widen), device_fn!(add_i64), 0).unwrap();
        assert_eq!(got, want, "map_reduce(widen, add_i64), n = {n}");
    }
}

#[test]
fn scans_of_every_length_and_type() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl scans");
    for n in lengths(&device) {
        let x = small_f32(&mut rng, n);
        let got = cudajit::inclusive_scan(&x, device_fn!(add_f32), 0.0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0.0f64;
        let want: Vec<f64> = x
            .iter()
            .map(|&v| {
                run += v as f64;
                run
            })
            .collect();
        assert!(
            got.iter().zip(&want).all(|(&g, &w)| g as f64 == w) && got.len() == n,
            "f32 inclusive scan, n = {n}"
        );

        let xu: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let got = cudajit::exclusive_scan(&xu, device_fn!(add_u64), 0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0u64;
        let want: Vec<u64> = xu
            .iter()
            .map(|&v| {
                let before = run;
                run = run.wrapping_add(v);
                before
            })
            .collect();
        assert_eq!(got, want, "u64 exclusive scan, n = {n}");

        // Order matters: most elements 0, so the first nonzero seen changes rarely.
        let xi: Vec<i32> = (0..n)
            .map(|_| {
                if rng.below(50) == 0 {
                    rng.next_u64() as i32 | 1
                } else {
                    0
                }
            })
            .collect();
        let got = cudajit::inclusive_scan(&xi, device_fn!(first_nonzero), 0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0i32;
        let want: Vec<i32> = xi
            .iter()
            .map(|&v| {
                run = if run != 0 { run } else { v };
                run
            })
            .collect();
        assert_eq!(got, want, "first_nonzero inclusive scan, n = {n}");

        let xd: Vec<f64> = (0..n).map(|_| rng.f64_in(0.0, 1.0)).collect();
        let got = cudajit::inclusive_scan(&xd, device_fn!(add_f64), 0.0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0.0f64;
        for (i, (&g, &v)) in got.iter().zip(&xd).enumerate() {
            run += v;
            // Both sums of i + 1 non-negative terms are within (i + 1) ulp-steps of the
            // exact one (the recursive-summation bound), whatever order the scan used:
            // 1e-12 held at 2^24 but not at 2^28, where tile order varies run to run.
            let bound = 2.0 * (i + 1) as f64 * f64::EPSILON * run + 1e-300;
            assert!(
                (g - run).abs() <= bound.max(1e-12 * run),
                "f64 scan, n = {n}, i = {i}: {g} against {run}"
            );
        }
        assert_eq!(got.len(), n);
    }
}

#[test]
fn reductions_into_device_arrays() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl reduce into");
    for n in lengths(&device) {
        let x = small_f32(&mut rng, n);
        let want: f64 = x.iter().map(|&v| v as f64).sum();
        let dx = DeviceArray::from_slice(&x).unwrap();
        let mut out = DeviceArray::from_slice(&[f32::NAN]).unwrap();
        cudajit::sum_into(&dx, &mut out).unwrap();
        assert_eq!(
            out.to_host().unwrap()[0] as f64,
            want,
            "f32 sum_into, n = {n}"
        );

        let xi: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        let mut out = DeviceArray::from_slice(&[7i64]).unwrap();
        cudajit::reduce_into(&xi, device_fn!(max_i64), i64::MIN, &mut out).unwrap();
        let want = xi.iter().copied().max().unwrap_or(i64::MIN);
        assert_eq!(
            out.to_host().unwrap()[0],
            want,
            "i64 reduce_into(max), n = {n}"
        );
        cudajit::min_into(&xi, &mut out).unwrap();
        let want = xi.iter().copied().min().unwrap_or(i64::MAX);
        assert_eq!(out.to_host().unwrap()[0], want, "i64 min_into, n = {n}");
    }
    // The result is one element: any other length is an `Err` naming it.
    let mut two = DeviceArray::<f32>::zeros(2).unwrap();
    let e = cudajit::sum_into(&[1.0f32, 2.0], &mut two)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`out` holds 2 elements"), "{e}");
}

#[test]
fn compaction_keeps_order() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl compact");
    for n in lengths(&device) {
        let x: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let got = cudajit::compact(&x, device_fn!(is_even))
            .unwrap()
            .to_host()
            .unwrap();
        let want: Vec<i32> = x.iter().copied().filter(|v| v % 2 == 0).collect();
        assert_eq!(got, want, "compact(is_even), n = {n}");

        let xf = rng.vec_f32(n, -1.0, 0.25);
        let dx = DeviceArray::from_slice(&xf).unwrap();
        let got = cudajit::compact(&dx, device_fn!(positive))
            .unwrap()
            .to_host()
            .unwrap();
        let want: Vec<f32> = xf.iter().copied().filter(|&v| v > 0.0).collect();
        assert_eq!(got, want, "compact(positive), n = {n}");
    }
}

#[test]
fn maps_apply_elementwise() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl map");
    for n in lengths(&device) {
        let x = small_f32(&mut rng, n);
        let y = small_f32(&mut rng, n);
        let got = cudajit::map2(&x, &y, device_fn!(axpy2))
            .unwrap()
            .to_host()
            .unwrap();
        let want: Vec<f32> = x.iter().zip(&y).map(|(&a, &b)| axpy2(a, b)).collect();
        assert_eq!(got, want, "map2(axpy2), n = {n}");

        // Into a poisoned output, from device arrays.
        let (dx, dy) = (
            DeviceArray::from_slice(&x).unwrap(),
            DeviceArray::from_slice(&y).unwrap(),
        );
        let mut out = DeviceArray::from_slice(&vec![f32::NAN; n]).unwrap();
        cudajit::map2_into(&dx, &dy, device_fn!(axpy2), &mut out).unwrap();
        assert_eq!(out.to_host().unwrap(), want, "map2_into(axpy2), n = {n}");

        let xi: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let got = cudajit::map(&xi, device_fn!(halve))
            .unwrap()
            .to_host()
            .unwrap();
        let want: Vec<f64> = xi.iter().map(|&v| v as f64 * 0.5).collect();
        assert_eq!(got, want, "map(halve), n = {n}");
    }
}

#[test]
fn unequal_lengths_are_errors_naming_both() {
    let _device = require_gpu!();
    let (x, y) = (vec![1.0f32; 5], vec![1.0f32; 7]);
    let e = cudajit::map2(&x, &y, device_fn!(axpy2))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("5") && e.contains("7") && e.contains("map2"),
        "{e}"
    );
    let mut out = DeviceArray::<f32>::zeros(4).unwrap();
    let e = cudajit::map2_into(&x, &x, device_fn!(axpy2), &mut out)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`a` holds 5") && e.contains("`out` holds 4"),
        "{e}"
    );
}

#[test]
fn stream_forms_run_on_the_stream() {
    let device = require_gpu!();
    let stream = device.new_stream().unwrap();
    let mut rng = Rng::fresh("hl streams");
    let n = 3000;
    let x: Vec<u64> = (0..n).map(|_| rng.below(1000)).collect();
    assert_eq!(cudajit::sum_on(&stream, &x).unwrap(), x.iter().sum::<u64>());
    let mut total = DeviceArray::from_slice(&[u64::MAX]).unwrap();
    cudajit::sum_into_on(&stream, &x, &mut total).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(total.to_host().unwrap()[0], x.iter().sum::<u64>());
    let scan = cudajit::inclusive_scan_on(&stream, &x, device_fn!(add_u64), 0).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(scan.to_host().unwrap()[n - 1], x.iter().sum::<u64>());
    let doubled = cudajit::map_on(&stream, &x, device_fn!(add_self)).unwrap();
    let want: Vec<u64> = x.iter().map(|v| v * 2).collect();
    assert_eq!(doubled.to_host().unwrap(), want);
}

#[cudajit::device]
fn add_self(x: u64) -> u64 {
    x + x
}

/// A GPU ufunc: still an ordinary function on the host.
#[cudajit::vectorize]
fn saxpy_like(x: f32, y: f32) -> f32 {
    3.0 * x + y
}

#[cudajit::vectorize]
fn clamp_to_byte(x: i32) -> u8 {
    if x < 0 {
        0
    } else if x > 255 {
        255
    } else {
        x as u8
    }
}

#[test]
fn vectorized_functions_apply_to_arrays() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl vectorize");
    for n in lengths(&device) {
        let (x, y) = (small_f32(&mut rng, n), small_f32(&mut rng, n));
        let want: Vec<f32> = x.iter().zip(&y).map(|(&a, &b)| saxpy_like(a, b)).collect();
        let got = saxpy_like::apply(&x, &y).unwrap().to_host().unwrap();
        assert_eq!(got, want, "saxpy_like::apply, n = {n}");
        let dy = DeviceArray::from_slice(&y).unwrap();
        let mut out = DeviceArray::from_slice(&vec![f32::NAN; n]).unwrap();
        saxpy_like::apply_into(&x, &dy, &mut out).unwrap();
        assert_eq!(
            out.to_host().unwrap(),
            want,
            "saxpy_like::apply_into, n = {n}"
        );

        // A scalar in place of either array is broadcast to every element.
        let a = rng.below(7) as f32 - 3.0;
        let want: Vec<f32> = y.iter().map(|&b| saxpy_like(a, b)).collect();
        let got = saxpy_like::apply(&a, &dy).unwrap().to_host().unwrap();
        assert_eq!(got, want, "saxpy_like::apply(scalar, array), n = {n}");
        let want: Vec<f32> = x.iter().map(|&v| saxpy_like(v, 0.5)).collect();
        let mut out = DeviceArray::from_slice(&vec![f32::NAN; n]).unwrap();
        saxpy_like::apply_into(&x, &0.5, &mut out).unwrap();
        assert_eq!(
            out.to_host().unwrap(),
            want,
            "saxpy_like::apply_into(array, scalar), n = {n}"
        );

        let xi: Vec<i32> = (0..n).map(|_| rng.below(600) as i32 - 150).collect();
        let want: Vec<u8> = xi.iter().map(|&v| clamp_to_byte(v)).collect();
        let got = clamp_to_byte::apply(&xi).unwrap().to_host().unwrap();
        assert_eq!(got, want, "clamp_to_byte::apply, n = {n}");
    }
    let e = saxpy_like::apply(&[1.0f32; 3], &[1.0f32; 4])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`a` holds 3") && e.contains("`b` holds 4"),
        "{e}"
    );
    let stream = device.new_stream().unwrap();
    let got = saxpy_like::apply_on(&stream, &[1.0f32, 2.0], &[0.5f32, 0.25]).unwrap();
    assert_eq!(got.to_host().unwrap(), vec![3.5, 6.25]);
    // Two scalars: one element. A scalar and an output of another length: `Err`.
    let got = saxpy_like::apply(&1.0, &0.5).unwrap();
    assert_eq!(got.to_host().unwrap(), vec![saxpy_like(1.0, 0.5)]);
    let mut out = DeviceArray::<f32>::zeros(4).unwrap();
    let e = saxpy_like::apply_into(&2.0, &[1.0f32; 3], &mut out)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`b` holds 3") && e.contains("`out` holds 4"),
        "{e}"
    );
    // A map fills its output from a broadcast scalar.
    let mut out = DeviceArray::from_slice(&[0u8; 5]).unwrap();
    cudajit::map_into(&300i32, device_fn!(clamp_to_byte), &mut out).unwrap();
    assert_eq!(out.to_host().unwrap(), vec![clamp_to_byte(300); 5]);
}

/// The README's example, as written there, with its results checked.
mod readme {
    use cudajit::device_fn;
    use cudajit::prelude::*;

    #[device]
    fn add(a: f32, b: f32) -> f32 {
        a + b
    }

    #[device]
    fn square(x: f32) -> f32 {
        x * x
    }

    #[device]
    fn positive(x: f32) -> bool {
        x > 0.0
    }

    #[device]
    fn larger(a: f32, b: f32) -> f32 {
        if b > a {
            b
        } else {
            a
        }
    }

    #[vectorize] // still an ordinary fn: saxpy(2.0, 1.0) == 5.0 on the host
    fn saxpy(x: f32, y: f32) -> f32 {
        2.0 * x + y
    }

    #[test]
    fn readme_example() {
        let _device = require_gpu!();
        let x = cudajit::to_device(&vec![1.0f32; 1000]).unwrap();
        let total: f32 = cudajit::sum(&x).unwrap();
        let same = cudajit::reduce(&x, device_fn!(add), 0.0).unwrap();
        let sq = cudajit::map_reduce(&x, device_fn!(square), device_fn!(add), 0.0).unwrap();
        let prefix = cudajit::inclusive_scan(&x, device_fn!(add), 0.0).unwrap();
        let kept = cudajit::compact(&x, device_fn!(positive)).unwrap();
        let y = saxpy::apply(&x, &x).unwrap();
        let z = saxpy::apply(&0.5, &x).unwrap();
        let mut on_device = cudajit::DeviceArray::<f32>::zeros(1).unwrap();
        cudajit::sum_into(&x, &mut on_device).unwrap();
        let m = cudajit::ndarray::Array2::<f32>::ones((300, 200));
        let col_sums = cudajit::sum_axis(&m, 0).unwrap().to_host().unwrap();
        let row_max = cudajit::reduce_axis(&m.t(), 0, device_fn!(larger), f32::MIN).unwrap();
        assert_eq!(col_sums.to_vec(), vec![300.0f32; 200]);
        assert_eq!(row_max.to_host().unwrap().to_vec(), vec![1.0f32; 300]);
        assert_eq!(z.to_host().unwrap(), vec![2.0f32; 1000]);
        assert_eq!(on_device.to_host().unwrap(), vec![1000.0]);
        assert_eq!((total, same, sq), (1000.0, 1000.0, 1000.0));
        let want: Vec<f32> = (1..=1000).map(|i| i as f32).collect();
        assert_eq!(prefix.to_host().unwrap(), want);
        assert_eq!(kept.len(), 1000);
        assert_eq!(y.to_host().unwrap(), vec![3.0f32; 1000]);
        assert_eq!(saxpy(2.0, 1.0), 5.0);
    }
}

/// A generic `#[device]` operator: the written kernel's call instantiates it.
#[cudajit::device]
fn plus<T: cudajit::Num>(a: T, b: T) -> T {
    a + b
}

#[test]
fn generic_device_operators_instantiate_per_element_type() {
    let _device = require_gpu!();
    let mut rng = Rng::fresh("hl generic op");
    let xi: Vec<i32> = (0..1000).map(|_| rng.below(100) as i32).collect();
    let xd: Vec<f64> = (0..1000).map(|_| rng.below(100) as f64).collect();
    let got = cudajit::reduce(&xi, device_fn!(plus), 0).unwrap();
    assert_eq!(got, xi.iter().sum::<i32>());
    let got = cudajit::inclusive_scan(&xd, device_fn!(plus), 0.0)
        .unwrap()
        .to_host()
        .unwrap();
    assert_eq!(got[999], xd.iter().sum::<f64>());
}
