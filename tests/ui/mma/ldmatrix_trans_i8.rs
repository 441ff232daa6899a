// ldmatrix.trans moves 16-bit units: a row-major i8 B tile cannot be transposed by it.
use cudajit::prelude::*;

fn main() {
    let tile = [0i8; 512];
    let _b = FragB::<M16N8K32, i8>::ldmatrix_row(&tile, 16, 0, 0);
}
