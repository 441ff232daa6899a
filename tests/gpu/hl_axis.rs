//! Reductions along one axis of 2-D and 3-D arrays (issue 12): every axis of several
//! shapes (empty, single, odd, wider and taller than a block), builtin and user
//! operators, `DeviceNd` and `ndarray` inputs (a transposed view included), each
//! against a plain host fold in logical order on fresh random input.

use super::common::Rng;
use cudajit::ndarray::{Array2, Array3, Axis};
use cudajit::{device_fn, prelude::*, DeviceNd};

#[device]
fn max_i64(a: i64, b: i64) -> i64 {
    if b > a {
        b
    } else {
        a
    }
}

/// Exact sums (small integers as f64) so any order of the fold gives the same bits.
fn small_f64s(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.below(2001) as f64 - 1000.0).collect()
}

fn shapes_2d(device: &cudajit::Device) -> Vec<(usize, usize)> {
    let mut shapes = vec![
        (0, 5),
        (5, 0),
        (1, 1),
        (33, 31),
        (3, 257),
        (257, 3),
        (2, 1000),
        (32, 33),
        (1, (1 << 12) + 1),
        ((1 << 12) - 1, 1),
    ];
    if !device.is_simulator() {
        // Up to 2^28 - 1 elements (2^14 + 1 rows of 2^14 - 1).
        shapes.extend([
            (1000, 1000),
            (1 << 14, 64),
            (64, 1 << 14),
            (1, (1 << 16) + 1),
            ((1 << 16) - 1, 1),
            ((1 << 14) + 1, (1 << 14) - 1),
        ]);
    }
    shapes
}

#[test]
fn sums_min_and_max_along_each_axis_of_2d_arrays() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl_axis 2d");
    for (rows, cols) in shapes_2d(&device) {
        let host = Array2::from_shape_vec((rows, cols), small_f64s(&mut rng, rows * cols)).unwrap();
        let on_device = DeviceNd::to_device(&host).unwrap();
        for axis in 0..2 {
            let want = host.fold_axis(Axis(axis), 0.0, |a, b| a + b);
            let got = cudajit::sum_axis(&on_device, axis).unwrap();
            assert_eq!(got.shape(), [want.len()], "({rows}, {cols}) axis {axis}");
            assert_eq!(
                got.to_host().unwrap(),
                want,
                "sum ({rows}, {cols}) axis {axis}"
            );
            let want = host.fold_axis(Axis(axis), f64::INFINITY, |a, &b| a.min(b));
            let got = cudajit::min_axis(&host, axis).unwrap().to_host().unwrap();
            assert_eq!(got, want, "min ({rows}, {cols}) axis {axis}");
        }
        // A transposed view: read in its logical order.
        let transposed = host.t();
        let want = transposed.fold_axis(Axis(1), f64::NEG_INFINITY, |a, &b| a.max(b));
        let got = cudajit::max_axis(&transposed, 1)
            .unwrap()
            .to_host()
            .unwrap();
        assert_eq!(got, want, "max over the transposed ({rows}, {cols}) axis 1");
    }
}

#[test]
fn user_operators_along_each_axis_of_3d_arrays() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl_axis 3d");
    let shapes: &[(usize, usize, usize)] = if device.is_simulator() {
        &[(2, 3, 4), (7, 33, 5), (1, 1, 300)]
    } else {
        &[(2, 3, 4), (7, 33, 5), (1, 1, 300), (64, 257, 129)]
    };
    for &(a, b, c) in shapes {
        let values: Vec<i64> = (0..a * b * c).map(|_| rng.next_u64() as i64).collect();
        let host = Array3::from_shape_vec((a, b, c), values).unwrap();
        let on_device = DeviceNd::to_device(&host).unwrap();
        for axis in 0..3 {
            let want = host.fold_axis(Axis(axis), i64::MIN, |x, &y| (*x).max(y));
            let got = cudajit::reduce_axis(&on_device, axis, device_fn!(max_i64), i64::MIN)
                .unwrap()
                .to_host()
                .unwrap();
            assert_eq!(got, want, "max_i64 over ({a}, {b}, {c}) axis {axis}");
            let want = host.fold_axis(Axis(axis), 0i64, |x, &y| x.wrapping_add(y));
            let got = cudajit::sum_axis(&on_device, axis)
                .unwrap()
                .to_host()
                .unwrap();
            assert_eq!(got, want, "wrapping sum over ({a}, {b}, {c}) axis {axis}");
        }
    }
}

#[test]
fn an_axis_the_array_lacks_is_an_error_naming_the_shape() {
    let _device = require_gpu!();
    let host = Array2::<f32>::zeros((3, 4));
    let Err(error) = cudajit::sum_axis(&host, 2) else {
        panic!("axis 2 of a 2-D array was accepted");
    };
    let error = error.to_string();
    assert!(
        error.contains("axis 2") && error.contains("[3, 4]"),
        "{error}"
    );
}

#[vectorize]
fn weighted(x: f32, y: f32) -> f32 {
    0.25 * x + y
}

#[test]
fn vectorized_functions_apply_to_nd_arrays_of_equal_shape() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl_axis vectorize");
    let (rows, cols) = if device.is_simulator() {
        (37, 45)
    } else {
        (1000, 777)
    };
    let a = Array2::from_shape_fn((rows, cols), |_| rng.f32_in(-1.0, 1.0));
    let b = Array2::from_shape_fn((cols, rows), |_| rng.f32_in(-1.0, 1.0));
    // A DeviceNd in place and a transposed view (copied in logical order).
    let on_device = DeviceNd::to_device(&a).unwrap();
    let got = weighted::apply(&on_device, &b.t())
        .unwrap()
        .to_host()
        .unwrap();
    let want: Vec<f32> = a
        .iter()
        .zip(b.t().iter())
        .map(|(&x, &y)| weighted(x, y))
        .collect();
    assert_eq!(got, want);
    // Into a DeviceNd of the same shape, poisoned first.
    let mut out = DeviceNd::to_device(&Array2::from_elem((rows, cols), f32::NAN)).unwrap();
    weighted::apply_into(&on_device, &b.t(), out.array_mut()).unwrap();
    assert_eq!(out.shape(), [rows, cols]);
    assert_eq!(
        out.to_host().unwrap().iter().copied().collect::<Vec<f32>>(),
        want
    );
    // A 3-D array with a broadcast scalar.
    let c = Array3::from_shape_fn((3, 5, 7), |(i, j, k)| (i * 35 + j * 7 + k) as f32);
    let got = weighted::apply(&c, &1.0).unwrap().to_host().unwrap();
    let want: Vec<f32> = c.iter().map(|&x| weighted(x, 1.0)).collect();
    assert_eq!(got, want);
    // Equal lengths, different shapes: an error naming both.
    let Err(error) = weighted::apply(&a, &b) else {
        panic!("shapes {:?} and {:?} were accepted", a.shape(), b.shape());
    };
    let error = error.to_string();
    assert!(
        error.contains(&format!("{:?}", a.shape())) && error.contains(&format!("{:?}", b.shape())),
        "{error}"
    );
}

/// Generic over the element type: instantiated by the runtime at the inputs' type.
#[vectorize]
fn halfway<T: Float>(x: T, y: T) -> T {
    (x + y) * T::from_f64(0.5)
}

#[test]
fn a_generic_vectorized_function_applies_to_f32_and_f64() {
    let _device = require_gpu!();
    let mut rng = Rng::fresh("hl_axis generic vectorize");
    let n = 1000 + rng.below(500) as usize;
    let x32: Vec<f32> = (0..n).map(|_| rng.f32_in(-8.0, 8.0)).collect();
    let y32: Vec<f32> = (0..n).map(|_| rng.f32_in(-8.0, 8.0)).collect();
    let got = halfway::apply(&x32, &y32).unwrap().to_host().unwrap();
    let want: Vec<f32> = x32.iter().zip(&y32).map(|(&a, &b)| (a + b) * 0.5).collect();
    assert_eq!(got, want, "f32");
    let x64: Vec<f64> = x32.iter().map(|&v| f64::from(v) / 3.0).collect();
    let on_device = cudajit::to_device(&x64).unwrap();
    let got = halfway::apply(&on_device, &1.0f64)
        .unwrap()
        .to_host()
        .unwrap();
    let want: Vec<f64> = x64.iter().map(|&a| (a + 1.0) * 0.5).collect();
    assert_eq!(got, want, "f64 with a broadcast scalar");
    assert_eq!(
        halfway(1.0f32, 2.0),
        1.5,
        "still an ordinary function on the host"
    );
}
