// Through #[kernel]: ldmatrix reads shared memory; a kernel's slice is global.
use cudajit::prelude::*;

#[kernel]
fn k(a: &[bf16], d: &mut [bf16]) {
    let f = FragA::<M16N8K16, bf16>::ldmatrix_row(a, 16, 0, 0);
    d[0] = f[0];
}

fn main() {}
