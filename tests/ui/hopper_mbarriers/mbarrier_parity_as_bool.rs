use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let bars = shared_array::<[u64; 1]>();
    // The parity is the phase's number mod 2 (a `u32`), not a flag.
    while !mbarrier_try_wait_parity(bars, 0, true) {}
    out[0] = 1;
}

fn main() {}
