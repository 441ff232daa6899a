//! README "The kernel subset", parameters: every scalar type by value, and slices
//! `&[T]` / `&mut [T]` of every scalar type. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn every_scalar_parameter(
    out: &mut [f64],
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: isize,
    f: u8,
    g: u16,
    h: u32,
    i: u64,
    j: usize,
    k: f32,
    l: f64,
    m: bool,
) {
    let ints = a as f64 + b as f64 + c as f64 + d as f64 + e as f64;
    let uints = f as f64 + g as f64 + h as f64 + i as f64 + j as f64;
    out[0] = ints + uints + k as f64 + l + m as u8 as f64;
}

#[kernel]
fn shared_slice_of_every_scalar(
    out: &mut [f64],
    a: &[i8],
    b: &[i16],
    c: &[i32],
    d: &[i64],
    e: &[isize],
    f: &[u8],
    g: &[u16],
    h: &[u32],
    i: &[u64],
    j: &[usize],
    k: &[f32],
    l: &[f64],
    m: &[bool],
) {
    let ints = a[0] as f64 + b[0] as f64 + c[0] as f64 + d[0] as f64 + e[0] as f64;
    let uints = f[0] as f64 + g[0] as f64 + h[0] as f64 + i[0] as f64 + j[0] as f64;
    out[0] = ints + uints + k[0] as f64 + l[0] + m[0] as u8 as f64;
}

#[kernel]
fn mutable_slice_of_every_scalar(
    a: &mut [i8],
    b: &mut [i16],
    c: &mut [i32],
    d: &mut [i64],
    e: &mut [isize],
    f: &mut [u8],
    g: &mut [u16],
    h: &mut [u32],
    i: &mut [u64],
    j: &mut [usize],
    k: &mut [f32],
    l: &mut [f64],
    m: &mut [bool],
) {
    a[0] = 1;
    b[0] = 1;
    c[0] = 1;
    d[0] = 1;
    e[0] = 1;
    f[0] = 1;
    g[0] = 1;
    h[0] = 1;
    i[0] = 1;
    j[0] = 1;
    k[0] = 1.0;
    l[0] = 1.0;
    m[0] = true;
}

fn main() {}
