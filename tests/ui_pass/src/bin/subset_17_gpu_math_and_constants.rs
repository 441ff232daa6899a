//! README "The kernel subset": GPU-only `rsqrt`, the approximate `fast_*` f32
//! functions, `mul_hi`, and scalar constants (`f32::MAX`, `u32::MAX`, `consts::PI`).
//! One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn rsqrt_f32_f64(x: &mut [f32], y: &mut [f64]) {
    x[0] = rsqrt(x[1]);
    y[0] = rsqrt(y[1]);
}

#[kernel]
fn fast_approximate_f32(x: &mut [f32]) {
    let a = x[0];
    x[1] = fast_sin(a)
        + fast_cos(a)
        + fast_exp(a)
        + fast_log(a)
        + fast_powf(a, 2.0)
        + fast_div(a, 3.0);
}

#[kernel]
fn mul_hi_every_integer(a: &mut [i32], b: &mut [u32], c: &mut [i64], d: &mut [u64]) {
    a[0] = mul_hi(a[1], a[2]);
    b[0] = mul_hi(b[1], b[2]);
    c[0] = mul_hi(c[1], c[2]);
    d[0] = mul_hi(d[1], d[2]);
}

#[kernel]
fn scalar_constants(x: &mut [f32], y: &mut [f64], u: &mut [u32], i: &mut [i64]) {
    x[0] = f32::MAX + f32::MIN + f32::EPSILON + std::f32::consts::PI;
    y[0] = f64::MAX + std::f64::consts::E + std::f64::consts::PI;
    u[0] = u32::MAX - u32::MIN;
    i[0] = i64::MAX;
}

fn main() {}
