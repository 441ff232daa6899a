//! README "The kernel subset": `grid_sync()`, a barrier for the whole grid.
use cudajit::prelude::*;

#[kernel]
fn grid_sync_barrier(out: &mut [f32]) {
    let i = grid(1);
    out[i] = 1.0;
    grid_sync();
    out[i] += out[(i + 1) % out.len()];
}

fn main() {}
