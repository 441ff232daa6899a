use cudajit::prelude::*;
use cudajit::TensorMap;

#[kernel]
fn k(map: &TensorMap<bf16, 2>) {
    // The map's boxes are bf16; the tile every block of the mask receives holds f32.
    let tile = shared_array_aligned::<[f32; 1024], 1024>();
    let bars = shared_array::<[u64; 1]>();
    tma_load_multicast(map, tile, [0, 0], bars, 0, 0b11);
}

fn main() {}
