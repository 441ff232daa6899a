// Through #[kernel]: ldmatrix.trans moves 16-bit units, not tf32.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f32]) {
    let tile = shared_array::<[f32; 64]>();
    let b = FragB::<M16N8K8, tf32>::ldmatrix_row(tile, 8, 0, 0);
    d[0] = b[0];
}

fn main() {}
