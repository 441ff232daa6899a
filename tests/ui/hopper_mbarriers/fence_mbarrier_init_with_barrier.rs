use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let bars = shared_array::<[u64; 1]>();
    if thread_idx().x == 0 {
        mbarrier_init(bars, 0, 32);
        // The fence orders all of this thread's inits: it names no barrier.
        fence_mbarrier_init(bars);
    }
    out[0] = 1;
}

fn main() {}
