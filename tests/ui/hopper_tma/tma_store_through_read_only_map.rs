use cudajit::prelude::*;
use cudajit::TensorMap;

// A store writes the tensor: a map built from a shared borrow is read-only.
#[kernel]
fn k(map: &TensorMap<bf16, 2>) {
    let tile = shared_array_aligned::<[bf16; 1024], 128>();
    tma_store(map, [0, 0], tile);
}

fn main() {}
