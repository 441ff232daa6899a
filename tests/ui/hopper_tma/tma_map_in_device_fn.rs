use cudajit::prelude::*;
use cudajit::TensorMap;

#[device]
fn prefetch(map: &TensorMap<bf16, 2>) {
    tma_prefetch(map);
}

fn main() {}
