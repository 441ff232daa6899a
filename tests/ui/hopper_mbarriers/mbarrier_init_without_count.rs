use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let bars = shared_array::<[u64; 1]>();
    // How many arrivals complete a phase is not optional.
    mbarrier_init(bars, 0);
    out[0] = 1;
}

fn main() {}
