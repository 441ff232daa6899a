use cudajit::prelude::*;
use cudajit::TensorMap;

#[kernel]
fn k(map: &mut TensorMap<bf16, 2>) {
    tma_prefetch(map);
}

fn main() {}
