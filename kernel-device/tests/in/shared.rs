// Static shared memory: 1-D and 2-D arrays, padding, coercion to slices.
use cudajit::prelude::*;

const TILE: usize = 32;
const BLOCK: usize = 256;

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

#[kernel]
fn block_sum(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; BLOCK]>();
    let tid = thread_idx().x as usize;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    sync_threads();
    tree_sum(cache, tid);
    if tid == 0 {
        partial[block_idx().x as usize] = cache[0];
    }
}

#[kernel]
fn transpose(input: &[f32], output: &mut [f32], rows: usize, cols: usize) {
    let tile: &mut [[f32; TILE + 1]; TILE] = shared_array();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let x = block_idx().x as usize * TILE + tx;
    let y = block_idx().y as usize * TILE + ty;
    if x < cols && y < rows {
        tile[ty][tx] = input[y * cols + x];
    }
    sync_threads();
    let ox = block_idx().y as usize * TILE + tx;
    let oy = block_idx().x as usize * TILE + ty;
    if ox < rows && oy < cols {
        output[oy * rows + ox] = tile[tx][ty];
    }
}

#[device]
fn scratch_row(v: u32) -> u32 {
    let counts = shared_array::<[u32; 4]>();
    counts[(v % 4) as usize] = v;
    sync_threads();
    counts[0]
}

#[kernel]
fn rows(out: &mut [u32]) {
    let grid2: &mut [[u32; 4]; 2] = shared_array();
    let t = thread_idx().x as usize;
    grid2[t % 2][t % 4] = t as u32;
    let row = &mut grid2[1];
    row[0] = 7;
    let first = &grid2[0];
    out[t] = scratch_row(t as u32) + first[t % 4] + row.len() as u32;
}

/// A 2-D shared array (and a local one) passed to device functions as
/// `&mut [[T; N]; M]`: generic pointers, the shared one converted at the call.
#[device]
fn two_d_partial_sum(sm: &mut [[f32; 33]; 4], t: usize) -> f32 {
    sm[1][t] = sm[0][t] * 2.0;
    sm[0][t] + sm[1][t] + sm[3][t]
}

#[device]
fn two_d_corner(m: &[[u32; 2]; 2]) -> u32 {
    m[1][1]
}

#[kernel]
fn two_d_to_device_fn(out: &mut [f32], ids: &mut [u32]) {
    let sm = shared_array::<[[f32; 33]; 4]>();
    let t = thread_idx().x as usize;
    if t < 33 {
        sm[0][t] = t as f32;
        sm[3][t] = 1.0;
        out[t] = two_d_partial_sum(sm, t);
    }
    let local = [[1u32, 2], [3, t as u32]];
    ids[t] = two_d_corner(&local);
}
