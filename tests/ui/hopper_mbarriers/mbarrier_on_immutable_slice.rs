use cudajit::prelude::*;

#[kernel]
fn k(bars: &[u64], out: &mut [u64]) {
    // Arriving writes the barrier: a shared `&[u64]` cannot be one.
    out[0] = mbarrier_arrive(bars, 0);
}

fn main() {}
