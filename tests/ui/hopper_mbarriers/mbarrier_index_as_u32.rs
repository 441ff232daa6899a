use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u64]) {
    let bars = shared_array::<[u64; 2]>();
    // The barrier's index is a `usize`, as every index.
    let stage: u32 = thread_idx().x % 2;
    out[0] = mbarrier_arrive(bars, stage);
}

fn main() {}
