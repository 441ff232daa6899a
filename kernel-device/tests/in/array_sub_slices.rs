// Sub-slices of arrays: a shared tile's halves through split_at_mut and a device
// function, a row of a 2-D shared array, a local accumulator's window, a constant table's
// tail. libnvvm keeps the shared accesses in the shared space (`ld.shared`) after
// inlining even though slices are generic pointers.
use cudajit::prelude::*;

const BLOCK: usize = 256;
const TAPS: [f32; 5] = [0.1, 0.2, 0.4, 0.2, 0.1];

#[device]
fn add_into(dst: &mut [f32], src: &[f32]) {
    for i in 0..dst.len() {
        dst[i] += src[i];
    }
}

#[device]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[kernel]
fn tile_halves(x: &[f32], out: &mut [f32]) {
    let tile = shared_array::<[f32; BLOCK]>();
    let rows: &mut [[f32; 9]; 8] = shared_array();
    let t = thread_idx().x as usize;
    tile[t] = x[grid(1)];
    if t < 8 {
        rows[t][0] = t as f32;
        for k in 1..9 {
            rows[t][k] = tile[t * 8 + k - 1];
        }
    }
    sync_threads();
    if t == 0 {
        let (lo, hi) = tile.split_at_mut(BLOCK / 2);
        add_into(&mut lo[..4], &hi[..4]);
        let mut acc = [0.0f32; 8];
        for k in 0..8 {
            acc[k] = dot(&rows[k][1..=5], &TAPS[..]);
        }
        add_into(&mut acc[2..6], &rows[3][..4]);
        let b = block_idx().x as usize;
        out[b] = dot(&acc[..], &tile[..8]) + dot(&TAPS[1..], &acc[4..8]);
    }
}
