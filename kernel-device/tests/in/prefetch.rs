// A guarded prefetch (`if cond { local = slice[i]; .. }` in a kernel) is written as
// predicated loads (`@p ld.global.nc`) without a branch, checked or not; its bounds
// checks count only when the condition holds.
use cudajit::prelude::*;

#[kernel]
fn prefetch_next_row(input: &[f32], out: &mut [f32], rows: usize, width: usize) {
    let t = thread_idx().x as usize;
    let mut next = [0.0f32; 4];
    for j in 0..4 {
        next[j] = input[4 * t + j];
    }
    for r in 0..rows {
        let cur = next;
        if r + 1 < rows {
            for j in 0..4 {
                next[j] = input[(r + 1) * width + 4 * t + j];
            }
        }
        out[r * width / 4 + t] = cur[0] + cur[1] + cur[2] + cur[3];
    }
}
