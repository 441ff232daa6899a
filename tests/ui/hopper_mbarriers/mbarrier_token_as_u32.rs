use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let bars = shared_array::<[u64; 1]>();
    // The arrival's token is a `u64` state, not a count.
    let token: u32 = mbarrier_arrive(bars, 0);
    out[0] = token;
}

fn main() {}
