// DMMA fragments are not made of 8x8 b16 matrices: no ldmatrix.
use cudajit::prelude::*;

fn main() {
    let tile = [0.0f64; 64];
    let _a = FragA::<M8N8K4, f64>::ldmatrix_row(&tile, 4, 0, 0);
}
