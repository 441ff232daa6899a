use cudajit::prelude::*;

// Numba's `tile[ty, tx]` written as a tuple index: one error, naming `tile[ty][tx]`.
#[kernel]
fn transpose(a: &[f32], out: &mut [f32], n: usize) {
    let tile = shared_array::<[[f32; 33]; 32]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    tile[(ty, tx)] = a[ty * n + tx];
    sync_threads();
    out[tx * n + ty] = tile[(ty, tx)];
}

fn main() {}
