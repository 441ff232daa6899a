use cudajit::prelude::*;
use cudajit::TensorMap;

#[kernel]
fn k(map: &TensorMap<f32, 6>) {
    tma_prefetch(map);
}

fn main() {}
