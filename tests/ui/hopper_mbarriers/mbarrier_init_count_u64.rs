use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32], n: u64) {
    let bars = shared_array::<[u64; 1]>();
    // PTX counts arrivals in 32 bits (at most 2^20 - 1).
    mbarrier_init(bars, 0, n);
    out[0] = 1;
}

fn main() {}
