// `#[kernel(block_dim = ..)]`: the block's size is a constant (`reqntid`), `thread_idx()`
// is below it, and indices into arrays that stay in bounds for every thread get no
// check (the 34x34 tile below); an index that can leave its array keeps its check
// (`row[tx + 1]` on a 32-element array, with 32 threads along x).
use cudajit::prelude::*;

#[kernel(block_dim = (32, 8))]
fn tile_halo(input: &[f32], out: &mut [f32], n: usize) {
    let t = shared_array::<[[f32; 34]; 34]>();
    let row = shared_array::<[f32; 32]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let x = block_idx().x as usize * 32 + tx;
    for r in (0..32).step_by(8) {
        t[ty + r + 1][tx + 1] = input[(ty + r) * n + x];
    }
    if ty == 0 {
        row[tx] = t[1][tx + 1];
    }
    sync_threads();
    let warps = block_dim().x * block_dim().y / 32;
    if ty == 1 && tx + 1 < 32 {
        out[x] = row[tx + 1] + t[ty][tx + 2] + warps as f32;
    }
}
