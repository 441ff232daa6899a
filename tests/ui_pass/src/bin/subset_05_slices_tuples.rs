//! README "The kernel subset": slice indexing and `.len()`, tuples and `.0`. One
//! kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn slice_indexing(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    out[i] = a[i];
}

#[kernel]
fn slice_len(a: &[f32], out: &mut [usize]) {
    out[0] = a.len() + out.len();
}

#[kernel]
fn tuple_field(out: &mut [f32]) {
    let t = (out[0], 2u32, true);
    if t.2 {
        out[1] = t.0 + t.1 as f32;
    }
}

fn main() {}
