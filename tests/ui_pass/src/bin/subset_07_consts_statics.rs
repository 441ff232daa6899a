//! README "The kernel subset": crate `const` and `static` items of scalar and array
//! types, named in kernels and device functions, evaluated by rustc (`const fn` calls
//! included); lengths and loop bounds as constant expressions. One kernel per
//! construct.
use cudajit::prelude::*;

const SCALE: f32 = 2.0;
static OFFSET: i32 = 7;
const TAPS: [f32; 3] = [0.25, 0.5, 0.25];
static TABLE: [[u8; 2]; 2] = [[1, 2], [3, 4]];
const TILE: usize = 4;
const N: usize = 3;
static SQUARES: [u32; 8] = squares();

const fn squares() -> [u32; 8] {
    let mut t = [0u32; 8];
    let mut i = 0;
    while i < 8 {
        t[i] = (i * i) as u32;
        i += 1;
    }
    t
}

#[device]
fn scaled(x: f32) -> f32 {
    x * SCALE + TAPS[0]
}

#[kernel]
fn scalar_const_and_static(out: &mut [f32]) {
    out[0] = SCALE + OFFSET as f32;
}

#[kernel]
fn array_const_and_static(out: &mut [f32]) {
    let k = grid(1) % 3;
    out[0] = TAPS[k] + TABLE[1][0] as f32;
}

#[kernel]
fn static_initialised_by_const_fn(out: &mut [u32]) {
    out[0] = SQUARES[grid(1) % 8];
}

#[kernel]
fn const_in_device_function(out: &mut [f32]) {
    out[0] = scaled(out[0]);
}

#[kernel]
fn constant_expression_length(out: &mut [f32]) {
    let a = [0.0f32; TILE + 1];
    out[0] = a[TILE];
}

#[kernel]
fn constant_expression_loop_bound(out: &mut [f32]) {
    for k in 0..N * 2 {
        out[k] = 0.0;
    }
}

fn main() {}
