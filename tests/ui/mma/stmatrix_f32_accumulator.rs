// stmatrix stores 16-bit accumulators only.
use cudajit::prelude::*;

fn main() {
    let c = Acc::<M16N8K16, f32>::zero();
    let mut tile = [0.0f32; 128];
    c.stmatrix_row(&mut tile, 8, 0, 0);
}
