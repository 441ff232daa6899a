//! Float and integer methods, GPU-only math, scalar constants and the device RNG
//! compile.
use cudajit::prelude::*;

#[kernel]
fn math(x: &mut [f32], y: &mut [f64], z: &mut [u32], states: &mut [u64]) {
    let i = grid(1);
    let a = x[i];
    x[i] = a.sqrt() + a.sin().cos() + a.powf(2.0) + a.powi(3) + a.mul_add(2.0, 1.0)
        + f32::sqrt(a) + a.clamp(0.0, 1.0) + a.hypot(1.0) + a.to_degrees() + a.fract()
        + rsqrt(a) + fast_sin(a) + fast_div(a, 2.0) + std::f32::consts::PI + f32::MAX
        + f32::from_bits(a.to_bits());
    y[i] = (y[i].exp() + y[i].ln_1p().atan2(1.0)).signum().recip();
    let u = z[i];
    z[i] = u.wrapping_add(1).count_ones() + u.rotate_left(3) + u.saturating_sub(1)
        + u.pow(2) + u.clamp(1, 9) + mul_hi(u, u) + u.leading_zeros() + u32::MAX;
    x[i] += xoroshiro128p_uniform_f32(states, i) + xoroshiro128p_normal_f32(states, i);
    y[i] += xoroshiro128p_uniform_f64(states, i) + xoroshiro128p_normal_f64(states, i);
}

#[kernel(boundscheck = false, fastmath = true)]
fn options(x: &mut [f32]) {
    x[0] = x[0] * 2.0 + 1.0;
}

fn main() {}
