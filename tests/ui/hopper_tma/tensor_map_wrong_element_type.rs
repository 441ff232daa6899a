use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

fn main() -> cudajit::Result<()> {
    let a = DeviceNd::<f32, 2>::from_array(DeviceArray::zeros(64 * 64)?, [64, 64])?;
    // A bf16 map cannot describe an f32 tensor.
    let _map = TensorMap::<bf16, 2>::tiled(&a, [64, 64], TensorMapOptions::default())?;
    Ok(())
}
