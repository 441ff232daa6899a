//! README "The kernel subset": `#[kernel(boundscheck = false)]`,
//! `#[kernel(fastmath = true)]`, `#[kernel(launch_bounds = ..)]` and `#[kernel(block_dim = ..)]`, alone and
//! together, and `#[unroll]` on `for` loops. One kernel per construct.
use cudajit::prelude::*;

#[kernel(boundscheck = false)]
fn boundscheck_false(x: &mut [f32]) {
    x[0] = x[1];
}

#[kernel(fastmath = true)]
fn fastmath_true(x: &mut [f32]) {
    x[0] = x[0] * 2.0 + 1.0;
}

#[kernel(boundscheck = false, fastmath = true)]
fn both_options(x: &mut [f32]) {
    x[0] = x[1] / x[2];
}

#[kernel(launch_bounds = 256)]
fn launch_bounds_threads(x: &mut [f32]) {
    x[0] = 1.0;
}

#[kernel(boundscheck = false, launch_bounds = (128, 4))]
fn launch_bounds_threads_and_blocks(x: &mut [f32]) {
    x[0] = 1.0;
}

#[kernel(block_dim = (32, 8))]
fn block_dim_2d(x: &mut [f32]) {
    x[0] = block_dim().x as f32;
}

#[kernel(launch_bounds = (256, 2), block_dim = 256)]
fn block_dim_with_launch_bounds(x: &mut [f32]) {
    x[0] = 1.0;
}

#[kernel]
fn unroll_every_iteration(x: &mut [f32]) {
    #[unroll]
    for i in 0..8 {
        x[i] = 0.0;
    }
}

#[kernel]
fn unroll_by_count(x: &mut [f32]) {
    #[unroll(4)]
    for i in 0..x.len() {
        x[i] = 0.0;
    }
}

fn main() {}
