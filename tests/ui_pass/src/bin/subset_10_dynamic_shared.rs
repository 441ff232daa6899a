//! README "The kernel subset": dynamic shared memory sized by the launch's
//! `shared_bytes`, carved with `take::<T>(n)` into slices of different types.
use cudajit::prelude::*;

#[kernel]
fn dynamic_shared_take(out: &mut [f32], n: usize) {
    let mut smem = dynamic_shared();
    let vals = smem.take::<f32>(n);
    let counts = smem.take::<u32>(n);
    let tid = thread_idx().x as usize;
    vals[tid] = out[tid];
    counts[tid] = 1;
    sync_threads();
    out[tid] = vals[n - 1 - tid] + counts[0] as f32;
}

fn main() {}
