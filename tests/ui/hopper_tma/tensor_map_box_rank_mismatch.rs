use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

fn main() -> cudajit::Result<()> {
    let a = DeviceNd::<f32, 2>::from_array(DeviceArray::zeros(64 * 64)?, [64, 64])?;
    // A 2-D map's box has two extents.
    let _map = TensorMap::tiled(&a, [64], TensorMapOptions::default())?;
    Ok(())
}
