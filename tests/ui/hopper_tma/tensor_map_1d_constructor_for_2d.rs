use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

fn main() -> cudajit::Result<()> {
    let a = DeviceArray::<f32>::zeros(64 * 64)?;
    // `tiled_1d` makes 1-D maps; a 2-D view of a flat array is `with_strides`.
    let _map = TensorMap::<f32, 2>::tiled_1d(&a, 64, TensorMapOptions::default())?;
    Ok(())
}
