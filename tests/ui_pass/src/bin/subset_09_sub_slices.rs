//! README "The kernel subset": sub-slices `&a[i..j]`, `&a[i..]`, `&a[..j]`, `&a[..]`,
//! `&a[i..=j]`, `&mut s[1..]`, `a[2..][0]`, `split_at` / `split_at_mut`, passed on to
//! device functions. One kernel per construct.
use cudajit::prelude::*;

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
fn sub_slice_range(a: &[f32], out: &mut [f32], i: usize, j: usize) {
    out[0] = total(&a[i..j]);
}

#[kernel]
fn sub_slice_from(a: &[f32], out: &mut [f32], i: usize) {
    out[0] = total(&a[i..]);
}

#[kernel]
fn sub_slice_to(a: &[f32], out: &mut [f32], j: usize) {
    out[0] = total(&a[..j]);
}

#[kernel]
fn sub_slice_full(a: &[f32], out: &mut [f32]) {
    out[0] = total(&a[..]);
}

#[kernel]
fn sub_slice_inclusive(a: &[f32], out: &mut [f32], i: usize, j: usize) {
    out[0] = total(&a[i..=j]);
}

#[kernel]
fn mutable_sub_slice(s: &mut [f32]) {
    fill(&mut s[1..], 2.0);
}

#[kernel]
fn index_into_sub_slice(a: &[f32], out: &mut [f32]) {
    out[0] = a[2..][0];
}

#[kernel]
fn slice_split_at(a: &[f32], out: &mut [f32], mid: usize) {
    let (lo, hi) = a.split_at(mid);
    out[0] = total(lo) - total(hi);
}

#[kernel]
fn slice_split_at_mut(s: &mut [f32], mid: usize) {
    let (lo, hi) = s.split_at_mut(mid);
    fill(lo, 1.0);
    hi[0] = 2.0;
}

fn main() {}
