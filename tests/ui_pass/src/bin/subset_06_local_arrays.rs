//! README "The kernel subset", local arrays: `[T; N]` and `[[T; N]; M]` of every
//! scalar, literals, `[x; N]`, indexing and compound assignment through an index,
//! `.len()`, by value to and from `#[device]` functions, borrowed as slices
//! (`&mut acc`, `&m[1][..2]`, `split_at`). One kernel per construct.
use cudajit::prelude::*;

#[device]
fn sum3(v: [f32; 3]) -> f32 {
    v[0] + v[1] + v[2]
}

#[device]
fn doubled(v: [f32; 3]) -> [f32; 3] {
    [v[0] * 2.0, v[1] * 2.0, v[2] * 2.0]
}

#[device]
fn total(s: &[f32]) -> f32 {
    let mut t = 0.0;
    for k in 0..s.len() {
        t += s[k];
    }
    t
}

#[device]
fn fill(s: &mut [f32], x: f32) {
    for k in 0..s.len() {
        s[k] = x;
    }
}

#[kernel]
fn array_literal(out: &mut [f32]) {
    let a = [1.0f32, 2.0, 3.0];
    out[0] = a[0] + a[1] + a[2];
}

#[kernel]
fn array_repeat(out: &mut [f32]) {
    let a = [out[0]; 8];
    out[1] = a[7];
}

#[kernel]
fn array_of_every_scalar(out: &mut [f64]) {
    let a = [1i8; 2];
    let b = [1i16; 2];
    let c = [1i32; 2];
    let d = [1i64; 2];
    let e = [1isize; 2];
    let f = [1u8; 2];
    let g = [1u16; 2];
    let h = [1u32; 2];
    let i = [1u64; 2];
    let j = [1usize; 2];
    let k = [1.0f32; 2];
    let l = [1.0f64; 2];
    let m = [true; 2];
    out[0] = a[0] as f64
        + b[0] as f64
        + c[0] as f64
        + d[0] as f64
        + e[0] as f64
        + f[0] as f64
        + g[0] as f64
        + h[0] as f64
        + i[0] as f64
        + j[0] as f64
        + k[0] as f64
        + l[0]
        + m[1] as u8 as f64;
}

#[kernel]
fn two_dimensional_array(out: &mut [f32]) {
    let mut m = [[0.0f32; 4]; 3];
    let i = grid(1) % 3;
    m[i][1] = 2.0;
    out[0] = m[i][1] + m[2][3];
}

#[kernel]
fn compound_assignment_through_index(out: &mut [f32]) {
    let mut acc = [0.0f32; 4];
    for k in 0..4usize {
        acc[k] += out[k];
    }
    out[0] = acc[3];
}

#[kernel]
fn array_len(out: &mut [usize]) {
    let a = [0u8; 5];
    let m = [[0u8; 5]; 2];
    out[0] = a.len() + m.len() + m[0].len();
}

#[kernel]
fn array_by_value_to_device_function(out: &mut [f32]) {
    out[0] = sum3([out[1], out[2], out[3]]);
}

#[kernel]
fn array_returned_from_device_function(out: &mut [f32]) {
    let d = doubled([out[1], out[2], out[3]]);
    out[0] = d[2];
}

#[kernel]
fn array_borrowed_as_slice(out: &mut [f32]) {
    let mut acc = [0.0f32; 4];
    fill(&mut acc, out[0]);
    out[1] = total(&acc);
}

#[kernel]
fn row_of_array_borrowed_as_sub_slice(out: &mut [f32]) {
    let m = [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    out[0] = total(&m[1][..2]);
}

#[kernel]
fn array_split_at(out: &mut [f32]) {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let (lo, hi) = a.split_at(1);
    out[0] = total(lo) - total(hi);
}

fn main() {}
