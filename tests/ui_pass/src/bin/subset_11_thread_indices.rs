//! README "The kernel subset": `thread_idx()`, `block_idx()`, `block_dim()`,
//! `grid_dim()` (each `.x .y .z`, `u32`), `grid(1|2|3)` and `grid_size(1|2|3)`. One
//! kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn thread_idx_xyz(out: &mut [u32]) {
    out[0] = thread_idx().x + thread_idx().y + thread_idx().z;
}

#[kernel]
fn block_idx_xyz(out: &mut [u32]) {
    out[0] = block_idx().x + block_idx().y + block_idx().z;
}

#[kernel]
fn block_dim_xyz(out: &mut [u32]) {
    out[0] = block_dim().x + block_dim().y + block_dim().z;
}

#[kernel]
fn grid_dim_xyz(out: &mut [u32]) {
    out[0] = grid_dim().x + grid_dim().y + grid_dim().z;
}

#[kernel]
fn grid_1_2_3(out: &mut [usize]) {
    let i = grid(1);
    let (x, y) = grid(2);
    let (p, q, r) = grid(3);
    out[0] = i + x + y + p + q + r;
}

#[kernel]
fn grid_size_1_2_3(out: &mut [usize]) {
    let n = grid_size(1);
    let (w, h) = grid_size(2);
    let (a, b, c) = grid_size(3);
    out[0] = n + w + h + a + b + c;
}

fn main() {}
