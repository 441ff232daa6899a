//! README "The kernel subset", static shared memory: `shared_array::<[T; N]>()`, the
//! annotated 2-D form with a constant-expression length, one inside a device function,
//! indexing through it, passing it on as a slice (`tree_sum(tile, tid)`, `&mut t[r]`,
//! `&tile[..n]`). One kernel per construct.
use cudajit::prelude::*;

const TILE: usize = 16;

#[device]
fn tree_sum(s: &mut [f32], tid: usize) {
    let mut stride = s.len() / 2;
    while stride > 0 {
        if tid < stride {
            s[tid] += s[tid + stride];
        }
        sync_threads();
        stride /= 2;
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

#[device]
fn block_scratch(tid: usize, x: f32) -> f32 {
    let scratch = shared_array::<[f32; 32]>();
    scratch[tid % 32] = x;
    sync_threads();
    scratch[(tid + 1) % 32]
}

#[kernel]
fn shared_array_turbofish(out: &mut [f32]) {
    let tile = shared_array::<[f32; 256]>();
    let tid = thread_idx().x as usize;
    tile[tid] = out[tid];
    sync_threads();
    out[tid] = tile[255 - tid];
}

#[kernel]
fn shared_array_annotated_2d(out: &mut [f32]) {
    let t: &mut [[f32; TILE + 1]; TILE] = shared_array();
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    t[ty][tx] = out[0];
    sync_threads();
    out[1] = t[tx][ty];
}

#[kernel]
fn shared_array_in_device_function(out: &mut [f32]) {
    let tid = thread_idx().x as usize;
    out[tid] = block_scratch(tid, out[tid]);
}

#[kernel]
fn shared_array_passed_as_slice(out: &mut [f32]) {
    let tile = shared_array::<[f32; 256]>();
    let tid = thread_idx().x as usize;
    tile[tid] = out[tid];
    sync_threads();
    tree_sum(tile, tid);
    out[0] = total(&tile[..4]);
}

#[kernel]
fn shared_row_passed_as_mutable_slice(out: &mut [f32]) {
    let t: &mut [[f32; TILE]; TILE] = shared_array();
    let r = thread_idx().y as usize;
    tree_sum(&mut t[r], thread_idx().x as usize);
    out[r] = t[r][0];
}

fn main() {}
