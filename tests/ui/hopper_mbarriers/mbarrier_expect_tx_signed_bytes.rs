use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u64], bytes: i32) {
    let bars = shared_array::<[u64; 1]>();
    // Transaction bytes are a `u32` count.
    out[0] = mbarrier_arrive_expect_tx(bars, 0, bytes);
}

fn main() {}
