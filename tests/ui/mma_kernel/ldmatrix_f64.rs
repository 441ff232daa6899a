// Through #[kernel]: DMMA's f64 fragments are not made of 8x8 b16 matrices.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f64]) {
    let tile = shared_array::<[f64; 64]>();
    let a = FragA::<M8N8K4, f64>::ldmatrix_row(tile, 8, 0, 0);
    d[0] = a[0];
}

fn main() {}
