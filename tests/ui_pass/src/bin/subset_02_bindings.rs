//! README "The kernel subset": `let`, `let mut`, shadowing, type annotations, tuple
//! patterns. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn let_binding(out: &mut [f32]) {
    let x = out[0];
    out[1] = x;
}

#[kernel]
fn let_mut_binding(out: &mut [f32]) {
    let mut x = out[0];
    x += 1.0;
    out[0] = x;
}

#[kernel]
fn shadowing(out: &mut [f32]) {
    let x = out[0];
    let x = x * 2.0;
    let x = x as f64;
    out[0] = x as f32;
}

#[kernel]
fn type_annotation(out: &mut [f32]) {
    let x: f32 = 1.5;
    let n: u8 = 3;
    out[0] = x + n as f32;
}

#[kernel]
fn tuple_pattern(out: &mut [usize]) {
    let (x, y) = grid(2);
    let (a, (b, c)) = (1usize, (2usize, 3usize));
    out[0] = x + y + a + b + c;
}

fn main() {}
