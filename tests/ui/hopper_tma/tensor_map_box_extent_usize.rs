use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

fn main() -> cudajit::Result<()> {
    let a = DeviceNd::<f32, 2>::from_array(DeviceArray::zeros(64 * 64)?, [64, 64])?;
    // Box extents are the driver's 32-bit counts (at most 256).
    let rows: usize = 32;
    let _map = TensorMap::tiled(&a, [rows, 32], TensorMapOptions::default())?;
    Ok(())
}
