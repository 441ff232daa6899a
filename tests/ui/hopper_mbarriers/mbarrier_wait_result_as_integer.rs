use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let bars = shared_array::<[u64; 1]>();
    // `try_wait` says whether the phase completed (a `bool`), not which phase it is.
    let phase: u32 = mbarrier_try_wait_parity(bars, 0, 0);
    out[0] = phase;
}

fn main() {}
