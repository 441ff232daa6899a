use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u64]) {
    let tile = shared_array::<[i32; 1024]>();
    out[0] = wgmma_descriptor(tile, 0, 128, 0, 1024);
}

fn main() {}
