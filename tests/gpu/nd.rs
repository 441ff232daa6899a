//! N-d arrays (issue 9): `&Nd<T, 2>` / `&mut Nd<T, 3>` kernel parameters indexed
//! `a[(i, j)]`, passed from `ndarray` arrays and views (transposed, stepped, reversed)
//! and from `DeviceNd`s, each checked against a plain host reference on fresh random
//! input with the output poisoned first; the per-axis out-of-bounds panic.

use super::common::Rng;
use cudajit::ndarray::{s, Array2, Array3, ShapeBuilder};
use cudajit::prelude::*;

/// A 5-point blur with clamped edges: `out[(i, j)]` is the mean of `src` at `(i, j)`
/// and its four neighbours (an edge repeats its own element).
#[kernel]
fn blur5(src: &Nd<f32, 2>, out: &mut Nd<f32, 2>) {
    let (i, j) = grid(2);
    let shape = src.shape();
    if i < shape[0] && j < shape[1] {
        let up = if i > 0 { i - 1 } else { i };
        let down = if i + 1 < shape[0] { i + 1 } else { i };
        let left = if j > 0 { j - 1 } else { j };
        let right = if j + 1 < shape[1] { j + 1 } else { j };
        out[(i, j)] =
            (src[(i, j)] + src[(up, j)] + src[(down, j)] + src[(i, left)] + src[(i, right)]) * 0.2;
    }
}

/// The blur on the host over any 2-D view (f64 sums, as the reference).
fn blur5_reference(src: &cudajit::ndarray::ArrayView2<f32>) -> Array2<f64> {
    let (rows, cols) = src.dim();
    Array2::from_shape_fn((rows, cols), |(i, j)| {
        let at = |a: usize, b: usize| f64::from(src[(a, b)]);
        let (up, down) = (i.saturating_sub(1), (i + 1).min(rows - 1));
        let (left, right) = (j.saturating_sub(1), (j + 1).min(cols - 1));
        (at(i, j) + at(up, j) + at(down, j) + at(i, left) + at(i, right)) * 0.2
    })
}

fn random_array(rng: &mut Rng, rows: usize, cols: usize) -> Array2<f32> {
    Array2::from_shape_vec((rows, cols), rng.vec_f32(rows * cols, -100.0, 100.0)).unwrap()
}

fn assert_close(got: &Array2<f32>, want: &Array2<f64>, what: &str) {
    assert_eq!(got.dim(), want.dim(), "{what}: shape");
    for ((index, &g), &w) in got.indexed_iter().zip(want.iter()) {
        assert!(
            (f64::from(g) - w).abs() <= 1e-4 * w.abs().max(1.0),
            "{what} at {index:?}: {g} vs {w}"
        );
    }
}

#[test]
fn a_5_point_blur_over_a_transposed_ndarray_view_matches_the_host() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("nd blur over a transposed view");
    let (rows, cols) = if device.is_simulator() {
        (37, 53)
    } else {
        (1031, 517)
    };
    let base = random_array(&mut rng, rows, cols);
    let src = base.t();
    // Poisoned; column-major so that the output is a non-standard layout too.
    let mut out = Array2::from_elem((cols, rows).f(), f32::NAN);
    let blocks = (cols.div_ceil(16) as u32, rows.div_ceil(16) as u32);
    launch!(blur5[blocks, (16, 16)](src, &mut out)).unwrap();
    assert_close(&out, &blur5_reference(&src), "blur of the transpose");
}

/// `out[(i, j)] = 2 * src[(i, j)] + i - j`, over the shape of `out`.
#[kernel]
fn scale_2d(src: &Nd<f32, 2>, out: &mut Nd<f32, 2>) {
    let (i, j) = grid(2);
    let shape = out.shape();
    if i < shape[0] && j < shape[1] {
        out[(i, j)] = 2.0 * src[(i, j)] + i as f32 - j as f32;
    }
}

#[test]
fn stepped_sliced_and_reversed_views_are_read_and_written_in_place() {
    let _device = require_gpu!();
    let mut rng = Rng::fresh("nd stepped and reversed views");
    let base = random_array(&mut rng, 23, 30);
    // Rows 1.., every second column (a span with gaps), into the reversed rows of a
    // poisoned array's stepped view; the elements between stay as they were.
    let src = base.slice(s![1.., ..;2]);
    let (rows, cols) = src.dim();
    let mut target = Array2::from_elem((rows * 2, cols + 3), -7.5f32);
    let before = target.clone();
    {
        let view = target.slice_mut(s![..;-2, 3..]);
        let blocks = (rows.div_ceil(8) as u32, cols.div_ceil(8) as u32);
        launch!(scale_2d[blocks, (8, 8)](src, view)).unwrap();
    }
    let written = target.slice(s![..;-2, 3..]);
    for ((i, j), &got) in written.indexed_iter() {
        let want = 2.0 * src[(i, j)] + i as f32 - j as f32;
        assert_eq!(got, want, "({i}, {j})");
    }
    // Everything outside the written view is untouched (the staging wrote back only
    // the view's own elements).
    for ((r, c), &got) in target.indexed_iter() {
        let in_view = r % 2 == 1 && c >= 3;
        if !in_view {
            assert_eq!(got, before[(r, c)], "outside the view at ({r}, {c})");
        }
    }
    // A negative-stride source (reversed both ways) read into a plain array.
    let reversed = base.slice(s![..;-1, ..;-1]);
    let mut out = Array2::from_elem(reversed.dim(), f32::NAN);
    launch!(scale_2d[(3, 4), (8, 8)](reversed, &mut out)).unwrap();
    for ((i, j), &got) in out.indexed_iter() {
        assert_eq!(
            got,
            2.0 * reversed[(i, j)] + i as f32 - j as f32,
            "({i}, {j})"
        );
    }
}

/// A 3-D stencil along the last axis: `out[(i, j, k)] = a[(i, j, k)] * (k + 1) - a[(i, j, k-1)]`.
#[kernel]
fn stencil_3d(a: &Nd<f64, 3>, out: &mut Nd<f64, 3>) {
    let (k, j, i) = grid(3);
    let shape = a.shape();
    if i < shape[0] && j < shape[1] && k < shape[2] {
        let previous = if k > 0 { a[(i, j, k - 1)] } else { 0.0 };
        out[(i, j, k)] = a[(i, j, k)] * (k + 1) as f64 - previous;
    }
}

#[test]
fn a_3d_kernel_round_trips_through_device_nd_arrays() {
    let _device = require_gpu!();
    let mut rng = Rng::fresh("nd 3-d round trip");
    let (n0, n1, n2) = (5, 6, 9);
    let host = Array3::from_shape_fn((n0, n1, n2), |_| rng.f64_in(-10.0, 10.0));
    // `to_device` of a permuted (non-standard) view: copied in logical order.
    let permuted = host.view().permuted_axes([2, 0, 1]);
    let a = DeviceNd::to_device(&permuted).unwrap();
    assert_eq!(a.shape(), [n2, n0, n1]);
    let back: Array3<f64> = a.to_host().unwrap();
    assert_eq!(back, permuted);

    let a = DeviceNd::to_device(&host).unwrap();
    let mut out = DeviceNd::from_array(
        DeviceArray::from_slice(&vec![f64::NAN; n0 * n1 * n2]).unwrap(),
        [n0, n1, n2],
    )
    .unwrap();
    launch!(stencil_3d[(2, 2, 5), (8, 4, 1)](&a, &mut out)).unwrap();
    let got = out.to_host().unwrap();
    for ((i, j, k), &g) in got.indexed_iter() {
        let previous = if k > 0 { host[(i, j, k - 1)] } else { 0.0 };
        assert_eq!(
            g,
            host[(i, j, k)] * (k + 1) as f64 - previous,
            "({i}, {j}, {k})"
        );
    }
    // A shape that does not fit the array is an `Err`.
    let flat = DeviceArray::from_slice(&[0.0f64; 10]).unwrap();
    let err = DeviceNd::<f64, 3>::from_array(flat, [2, 2, 2])
        .err()
        .expect("refused");
    assert!(err.to_string().contains("[2, 2, 2]"), "{err}");
}

#[kernel]
fn write_at(a: &mut Nd<i32, 3>, i: usize, j: usize, k: usize) {
    a[(i, j, k)] = 1;
}

#[test]
fn an_index_past_an_axis_panics_naming_the_axis_index_and_length() {
    let _device = require_gpu!();
    let mut a = Array3::<i32>::zeros((2, 3, 4));
    for ((i, j, k), axis, index, len) in [
        ((2, 0, 0), 0, 2, 2),
        ((0, 3, 0), 1, 3, 3),
        ((1, 2, 7), 2, 7, 4),
    ] {
        let err = launch!(write_at[1, 1](&mut a, i, j, k)).unwrap_err();
        match err {
            cudajit::Error::KernelPanic { message, .. } => assert_eq!(
                message,
                format!(
                    "index out of bounds: axis {axis} has length {len} but the index is {index}"
                )
            ),
            other => panic!("expected a kernel panic, got {other}"),
        }
    }
    assert!(a.iter().all(|&v| v == 0));
    launch!(write_at[1, 1](&mut a, 1, 2, 3)).unwrap();
    assert_eq!(a[(1, 2, 3)], 1);
    assert_eq!(a.sum(), 1);
}

#[test]
fn nd_indexes_on_the_host_and_panics_in_the_same_words() {
    // `write_at`'s body, `a[(i, j, k)] = 1`, on the host over a real `Nd` (what rustc
    // type-checks the kernel against).
    let mut a = Nd::from_shape_vec([2, 3, 4], vec![0i32; 24]).unwrap();
    a[(1, 2, 3)] = 1;
    assert_eq!(a[(1, 2, 3)], 1);
    let panic = std::panic::catch_unwind(move || {
        let mut a = a;
        let (i, j, k) = (0, 3, 0);
        a[(i, j, k)] = 1;
    })
    .unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some("index out of bounds: axis 1 has length 3 but the index is 3")
    );
}

/// A generic N-d kernel (its launches name the instantiations, so that the GPU
/// bundle's ahead-of-time build finds them).
#[kernel]
fn transpose_into<T: Num>(a: &Nd<T, 2>, out: &mut Nd<T, 2>) {
    let (i, j) = grid(2);
    let shape = out.shape();
    if i < shape[0] && j < shape[1] {
        out[(i, j)] = a[(j, i)] + T::one();
    }
}

#[test]
fn a_generic_nd_kernel_runs_for_f32_and_i64() {
    let _device = require_gpu!();
    let mut rng = Rng::fresh("nd generic transpose");
    let a = random_array(&mut rng, 9, 14);
    let mut out = Array2::from_elem((14, 9), f32::NAN);
    launch!(transpose_into::<f32>[(2, 2), (8, 8)](&a, &mut out)).unwrap();
    assert_eq!(out, a.t().mapv(|v| v + 1.0));
    let b = Array2::from_shape_fn((5, 3), |_| rng.next_u64() as i64 >> 2);
    let mut out = Array2::from_elem((3, 5), i64::MIN);
    launch!(transpose_into::<i64>[1, (8, 8)](b.view(), &mut out)).unwrap();
    assert_eq!(out, b.t().mapv(|v| v + 1));
}
