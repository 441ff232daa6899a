use cudajit::prelude::*;

#[kernel]
fn k(a: &mut [bf16], out: &mut [u64]) {
    // A descriptor names shared memory; `a` is global.
    out[0] = wgmma_descriptor(a, 0, 128, 0, 1024);
}

fn main() {}
