use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

#[kernel]
fn k(map: &TensorMap<bf16, 2>) {
    tma_prefetch(map);
}

fn main() -> cudajit::Result<()> {
    let nd = DeviceNd::from_array(DeviceArray::from_slice(&[0.0f32; 64 * 64])?, [64, 64])?;
    let map = TensorMap::tiled(&nd, [16, 16], TensorMapOptions::default())?;
    // A map of f32 for a bf16 parameter.
    launch!(k[1, 32](&map))
}
