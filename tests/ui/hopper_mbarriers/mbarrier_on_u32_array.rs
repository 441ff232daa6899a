use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    // An mbarrier is a `u64`: a `u32` word cannot hold one.
    let bars = shared_array::<[u32; 2]>();
    if thread_idx().x == 0 {
        mbarrier_init(bars, 0, 32);
    }
    out[0] = 1;
}

fn main() {}
