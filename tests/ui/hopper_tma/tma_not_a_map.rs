use cudajit::prelude::*;

#[kernel]
fn k(data: &[bf16]) {
    let tile = shared_array_aligned::<[bf16; 1024], 1024>();
    let bars = shared_array::<[u64; 1]>();
    // A copy goes through a tensor map parameter, not the array itself.
    tma_load(data, tile, [0, 0], bars, 0);
}

fn main() {}
