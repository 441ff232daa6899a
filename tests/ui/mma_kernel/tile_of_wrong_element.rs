// Through #[kernel]: a bf16 fragment loads from bf16 memory.
use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], d: &mut [bf16]) {
    let f = FragA::<M16N8K16, bf16>::load_row(a, 16, 0, 0);
    d[0] = f[0];
}

fn main() {}
