//! Local arrays (1-D and 2-D), arrays to and from device functions, sub-slices,
//! `split_at`, crate constants and statics of scalar and array types compile.
use cudajit::prelude::*;

const TILE: usize = 4;
static TAPS: [f32; 3] = [0.25, 0.5, 0.25];
const SCALE: f32 = 2.0;

#[device]
fn sum3(v: [f32; 3]) -> f32 {
    v[0] + v[1] + v[2]
}

#[device]
fn fill(s: &mut [f32], x: f32) {
    for k in 0..s.len() {
        s[k] = x;
    }
}

#[device]
fn total(s: &[f32]) -> f32 {
    let mut t = 0.0;
    for k in 0..s.len() {
        t += s[k];
    }
    t
}

#[kernel]
fn arrays(a: &[f32], out: &mut [f32]) {
    let mut acc = [0.0f32; TILE + 1];
    let m = [[1.0f32, 2.0], [3.0, 4.0]];
    acc[0] += m[1][0] * TAPS[1] * SCALE;
    let pair = [a[0], a[1], a[2]];
    acc[1] = sum3(pair) + acc.len() as f32;
    fill(&mut acc[2..], 1.0);
    let (lo, hi) = a.split_at(1);
    acc[3] = total(lo) + total(&hi[..1]) + total(&a[1..=2]) + a[1..][0];
    let (first, rest) = out.split_at_mut(1);
    fill(rest, acc[0]);
    first[0] = total(&acc);
}

fn main() {}
