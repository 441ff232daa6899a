use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u64]) {
    // Barriers are elements of a flat `[u64; N]` array, named by index.
    let bars = shared_array::<[[u64; 2]; 2]>();
    out[0] = mbarrier_arrive(bars, 0);
}

fn main() {}
