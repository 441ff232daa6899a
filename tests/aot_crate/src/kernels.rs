//! Kernels in a module of their own file (the scan covers all of `src/`).

use cudajit::prelude::*;

#[device]
fn twice<T: Float>(x: T) -> T {
    x + x
}

/// `y = 2 a x + y`, generic: compiled ahead of time for the instantiations that
/// `cudajit::instantiate!` lists in main.rs.
#[kernel]
pub fn axpy2<T: Float>(a: T, x: &[T], y: &mut [T]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = twice::<T>(a * x[i]) + y[i];
    }
}

/// `y[i * STRIDE] = v`, generic in its type and stride: no `instantiate!` lists it, so
/// the build finds its one instantiation in main.rs's `launch!(stride_fill::<f64, 3>..)`,
/// and that launch registers it to be loaded while the GPU opens.
#[kernel]
pub fn stride_fill<T: Num, const STRIDE: usize>(v: T, y: &mut [T]) {
    let i = grid(1);
    if i * STRIDE < y.len() {
        y[i * STRIDE] = v;
    }
}
