// A column-major tf32 A tile needs ldmatrix.trans, which is 16-bit only.
use cudajit::prelude::*;

fn main() {
    let tile = [0.0f32; 256];
    let _a = FragA::<M16N8K8, tf32>::ldmatrix_col(&tile, 16, 0, 0);
}
