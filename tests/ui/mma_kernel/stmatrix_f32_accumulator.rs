// Through #[kernel]: stmatrix stores 16-bit accumulators only.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f32]) {
    let tile = shared_array::<[f32; 128]>();
    let c = Acc::<M16N8K16, f32>::zero();
    c.stmatrix_row(tile, 8, 0, 0);
    d[0] = tile[0];
}

fn main() {}
