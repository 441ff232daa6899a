use cudajit::prelude::*;
use cudajit::TensorMap;

#[kernel]
fn k(map: &TensorMap<bf16, 2>) {
    let tile = shared_array_aligned::<[bf16; 1024], 1024>();
    let bars = shared_array::<[u64; 1]>();
    // The mask is a `u16` of cluster ranks; this one is a `u32`.
    let everyone = (1u32 << cluster_size()) - 1;
    tma_load_multicast(map, tile, [0, 0], bars, 0, everyone);
}

fn main() {}
