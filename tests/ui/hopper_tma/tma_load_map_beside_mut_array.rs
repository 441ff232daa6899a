use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

#[kernel]
fn k(map: &TensorMap<f32, 2>, out: &mut [f32]) {
    tma_prefetch(map);
    out[0] = 1.0;
}

fn main() -> cudajit::Result<()> {
    let mut nd = DeviceNd::from_array(DeviceArray::from_slice(&[0.0f32; 64 * 64])?, [64, 64])?;
    let map = TensorMap::tiled(&nd, [16, 16], TensorMapOptions::default())?;
    // The kernel would read the array through the map while writing it through `out`.
    launch!(k[1, 32](&map, nd.array_mut()))
}
