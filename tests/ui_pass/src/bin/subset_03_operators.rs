//! README "The kernel subset": arithmetic, comparison, bitwise and logical operators
//! (with short-circuiting), compound assignment `+=` .. `>>=`, `as` casts between
//! scalars. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn arithmetic_operators(f: &mut [f32], i: &mut [i32]) {
    f[0] = f[1] + f[2] - f[3] * f[4] / f[5] % f[6] + -f[7];
    i[0] = i[1] + i[2] - i[3] * i[4] / i[5] % i[6] + -i[7];
}

#[kernel]
fn comparison_operators(a: &[i32], out: &mut [bool]) {
    out[0] = a[0] == a[1];
    out[1] = a[0] != a[1];
    out[2] = a[0] < a[1];
    out[3] = a[0] <= a[1];
    out[4] = a[0] > a[1];
    out[5] = a[0] >= a[1];
}

#[kernel]
fn bitwise_operators(a: &mut [u32]) {
    a[0] = (a[1] & a[2]) | (a[3] ^ !a[4]) | (a[5] << 3) | (a[6] >> 2);
}

#[kernel]
fn logical_operators_short_circuit(a: &[i32], out: &mut [bool]) {
    let i = grid(1);
    // `i < a.len()` guards the index: `&&` does not evaluate its right side otherwise.
    out[0] = i < a.len() && a[i] > 0 || !(i == 0);
}

#[kernel]
fn compound_assignment(i: &mut [i32], f: &mut [f32]) {
    let mut x = i[0];
    x += 1;
    x -= 2;
    x *= 3;
    x /= 4;
    x %= 5;
    x &= 6;
    x |= 7;
    x ^= 8;
    x <<= 1;
    x >>= 1;
    i[0] = x;
    f[0] += 1.0;
    f[1] -= 1.0;
    f[2] *= 2.0;
    f[3] /= 2.0;
    f[4] %= 2.0;
}

#[kernel]
fn as_casts(f: &mut [f32], out: &mut [i64]) {
    let x = f[0];
    out[0] = x as i64 + (x as u8) as i64 + (x as f64) as i64 + (x as i32 as usize) as i64;
    f[1] = out[1] as f32 + true as u32 as f32 + (3u64 as i8) as f32;
}

fn main() {}
