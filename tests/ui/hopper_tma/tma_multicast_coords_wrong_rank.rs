use cudajit::prelude::*;
use cudajit::TensorMap;

#[kernel]
fn k(map: &TensorMap<bf16, 2>) {
    let tile = shared_array_aligned::<[bf16; 1024], 1024>();
    let bars = shared_array::<[u64; 1]>();
    // A 2-D map takes two coordinates.
    tma_load_multicast(map, tile, [0, 0, 0], bars, 0, 0b11);
}

fn main() {}
