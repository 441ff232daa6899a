//! Reductions without writing a kernel: `sum`, `min`, `max` of 2^26 + 1 floats (2^16 + 1
//! on the CPU simulator), a user's `#[device]` operator through `reduce`, a sum of
//! squares through `map_reduce`, an argmax over (value, index) pairs through
//! `map_reduce_indexed` (ties to the lowest index), column sums and row maxima of a
//! matrix (`sum_axis`, `reduce_axis` over a transposed `ndarray` view), each checked
//! against the CPU; then
//! the sum into a one-element device array (`sum_into_on`, no read back) is timed.
//!
//! `cargo run --release --example reduce` (on an NVIDIA GPU; without one, on the CPU
//! simulator).

use cudajit::device_fn;
use cudajit::prelude::*;

#[path = "common/mod.rs"]
mod common;

/// The larger of two values: associative and commutative, with identity `-inf`.
#[device]
fn larger(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// A value and its index: an argmax's element (a `#[repr(C)]` struct, since tuples
/// have no guaranteed layout).
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
struct ValueIndex {
    value: f32,
    index: u32,
}

#[device]
fn tag(i: usize, x: f32) -> ValueIndex {
    ValueIndex {
        value: x,
        index: i as u32,
    }
}

/// The larger value, the lower index on a tie: associative and commutative.
#[device]
fn larger_first(a: ValueIndex, b: ValueIndex) -> ValueIndex {
    if b.value > a.value || (b.value == a.value && b.index < a.index) {
        b
    } else {
        a
    }
}

#[device]
fn square(x: f32) -> f64 {
    let x = x as f64;
    x * x
}

#[device]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() -> common::MainResult {
    let device = common::announce("reduce")?;
    let n = common::size_for(&device, (1 << 26) + 1, (1 << 16) + 1);
    let mut rng = common::Rng::fresh("reduce");
    // Small integers as floats: every partial sum is exact, whatever the order.
    let x: Vec<f32> = (0..n).map(|_| rng.below(17) as f32 - 8.0).collect();
    let x = cudajit::to_device(&x)?;
    let host = x.to_host()?;

    let sum = cudajit::sum(&x)?;
    let want: f64 = host.iter().map(|&v| v as f64).sum();
    assert_eq!(sum as f64, want, "sum");
    let (lo, hi) = (cudajit::min(&x)?, cudajit::max(&x)?);
    assert_eq!(
        lo,
        host.iter().copied().fold(f32::INFINITY, f32::min),
        "min"
    );
    assert_eq!(
        hi,
        host.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        "max"
    );
    let largest = cudajit::reduce(&x, device_fn!(larger), f32::NEG_INFINITY)?;
    assert_eq!(largest, hi, "reduce(larger)");
    let squares = cudajit::map_reduce(&x, device_fn!(square), device_fn!(add), 0.0)?;
    let want_squares: f64 = host.iter().map(|&v| (v as f64) * (v as f64)).sum();
    assert_eq!(squares, want_squares, "map_reduce(square, add)");

    // argmax: the first index of the largest value (an empty input would give the
    // identity, index u32::MAX).
    let none = ValueIndex {
        value: f32::NEG_INFINITY,
        index: u32::MAX,
    };
    let arg = cudajit::map_reduce_indexed(&x, device_fn!(tag), device_fn!(larger_first), none)?;
    let first = host.iter().position(|&v| v == hi).map(|i| i as u32);
    assert_eq!((arg.value, Some(arg.index)), (hi, first), "argmax");

    // Along one axis of a matrix: column sums, and row maxima read through a transposed
    // view (its rows are the matrix's columns).
    let (rows, cols) = (n / 1024, 1024);
    let matrix =
        cudajit::ndarray::Array2::from_shape_vec((rows, cols), host[..rows * cols].to_vec())
            .expect("rows * cols elements");
    let column_sums = cudajit::sum_axis(&matrix, 0)?.to_host()?;
    let want_sums = matrix.fold_axis(cudajit::ndarray::Axis(0), 0.0f32, |a, b| a + b);
    assert_eq!(column_sums, want_sums, "sum_axis");
    let row_max = cudajit::reduce_axis(&matrix.t(), 0, device_fn!(larger), f32::NEG_INFINITY)?;
    let want_max = matrix.fold_axis(cudajit::ndarray::Axis(1), f32::NEG_INFINITY, |a, &b| {
        a.max(b)
    });
    assert_eq!(
        row_max.to_host()?,
        want_max,
        "reduce_axis over a transposed view"
    );

    // The result can stay on the device (nothing read back, nothing waits).
    let stream = Stream::new()?;
    let mut total = cudajit::DeviceArray::<f32>::zeros(1)?;
    cudajit::sum_into_on(&stream, &x, &mut total)?;
    stream.synchronize()?;
    assert_eq!(total.to_host()?[0] as f64, want, "sum_into_on");

    let ms = common::time_on(&stream, || cudajit::sum_into_on(&stream, &x, &mut total))?;
    println!(
        "reduce: n = {n}: sum {sum}, min {lo}, max {hi} (first at {}), sum of squares {squares}: OK; sum {}",
        arg.index,
        common::describe_time(&device, ms, n, 4 * n)
    );
    Ok(())
}
