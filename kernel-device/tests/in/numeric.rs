// The numeric methods with std's semantics (integers of every width, f32 and f64) and
// the GPU-only math functions.

#[kernel]
fn integers(a: &mut [u8], b: &mut [i16], c: &mut [i32], d: &mut [u64], n: u32) {
    let i = grid(1);
    let x = a[i];
    a[i] = x.count_ones() as u8 + x.rotate_left(n) + x.swap_bytes() + x.reverse_bits();
    a[i] += x.pow(n) + x.saturating_add(7) + x.saturating_sub(200) + x.clamp(3, 9);
    let y = b[i];
    b[i] = y.leading_zeros() as i16 + y.rotate_right(n) + y.swap_bytes() + y.reverse_bits();
    b[i] += y.saturating_add(-7) + y.saturating_sub(300) + y.clamp(-5, 5) + y.pow(3);
    let z = c[i];
    c[i] = z.trailing_zeros() as i32 + z.rotate_left(n) + z.swap_bytes() + z.reverse_bits();
    c[i] += z.saturating_add(z) + z.saturating_sub(-z) + mul_hi(z, 77) + z.pow(n);
    let w = d[i];
    d[i] = w.count_ones() as u64 + w.leading_zeros() as u64 + w.trailing_zeros() as u64;
    d[i] += w.rotate_right(n) + w.swap_bytes() + w.reverse_bits() + mul_hi(w, w);
    d[i] += w.saturating_add(w) + w.saturating_sub(9) + w.clamp(10, 1000) + w.pow(n);
}

#[kernel]
fn floats(x: &mut [f32], y: &mut [f64], bits: &mut [u32], wide: &mut [u64]) {
    let i = grid(1);
    let a = x[i];
    let mut s = a.fract() + a.clamp(-1.0, 1.0) + rsqrt(a) + fast_sin(a) + fast_cos(a);
    s += fast_exp(a) + fast_log(a) + fast_powf(a, 2.5) + fast_div(a, 3.0);
    s += f32::from_bits(bits[i]) + a.is_nan() as u32 as f32 + a.is_finite() as u32 as f32;
    x[i] = s;
    bits[i] = a.to_bits();
    let b = y[i];
    y[i] = b.fract() + b.clamp(-2.0, 2.0) + rsqrt(b) + f64::from_bits(wide[i]);
    wide[i] = b.to_bits() + b.is_nan() as u64 + b.is_finite() as u64;
}
