//! README "The kernel subset": every `f32`/`f64` method through libdevice, the
//! associated-function form `f32::sqrt(x)`, and `fract is_nan is_finite clamp
//! to_bits`, `f32::from_bits(u)`. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn float_methods_f32(x: &mut [f32]) {
    let a = x[0];
    let b = x[1];
    x[2] = a.sqrt()
        + a.cbrt()
        + a.sin()
        + a.cos()
        + a.tan()
        + a.asin()
        + a.acos()
        + a.atan()
        + a.atan2(b)
        + a.sinh()
        + a.cosh()
        + a.tanh();
    x[3] = a.exp()
        + a.exp2()
        + a.exp_m1()
        + a.ln()
        + a.log2()
        + a.log10()
        + a.ln_1p()
        + a.powf(b)
        + a.powi(3)
        + a.hypot(b);
    x[4] = a.floor()
        + a.ceil()
        + a.round()
        + a.trunc()
        + a.abs()
        + a.min(b)
        + a.max(b)
        + a.mul_add(b, 1.0)
        + a.copysign(b)
        + a.signum()
        + a.recip()
        + a.to_degrees()
        + a.to_radians();
}

#[kernel]
fn float_methods_f64(x: &mut [f64]) {
    let a = x[0];
    let b = x[1];
    x[2] = a.sqrt()
        + a.cbrt()
        + a.sin()
        + a.cos()
        + a.tan()
        + a.asin()
        + a.acos()
        + a.atan()
        + a.atan2(b)
        + a.sinh()
        + a.cosh()
        + a.tanh();
    x[3] = a.exp()
        + a.exp2()
        + a.exp_m1()
        + a.ln()
        + a.log2()
        + a.log10()
        + a.ln_1p()
        + a.powf(b)
        + a.powi(3)
        + a.hypot(b);
    x[4] = a.floor()
        + a.ceil()
        + a.round()
        + a.trunc()
        + a.abs()
        + a.min(b)
        + a.max(b)
        + a.mul_add(b, 1.0)
        + a.copysign(b)
        + a.signum()
        + a.recip()
        + a.to_degrees()
        + a.to_radians();
}

#[kernel]
fn float_associated_function_form(x: &mut [f32], y: &mut [f64]) {
    x[0] = f32::sqrt(x[0]) + f32::max(x[1], x[2]);
    y[0] = f64::sin(y[0]);
}

#[kernel]
fn float_fract_is_nan_is_finite_clamp(x: &mut [f32], flags: &mut [bool]) {
    x[0] = x[1].fract() + x[2].clamp(0.0, 1.0);
    flags[0] = x[3].is_nan() || !x[4].is_finite();
}

#[kernel]
fn float_to_bits_from_bits(x: &mut [f32], y: &mut [f64], bits: &mut [u32]) {
    bits[0] = x[0].to_bits();
    x[1] = f32::from_bits(bits[1]);
    y[0] = f64::from_bits(y[1].to_bits());
}

fn main() {}
