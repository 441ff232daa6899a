//! README "The kernel subset": `#[kernel(boundscheck = false)]` and
//! `#[kernel(fastmath = true)]`, alone and together. One kernel per construct.
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

fn main() {}
