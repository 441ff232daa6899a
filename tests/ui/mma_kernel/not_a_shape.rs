// Through #[kernel]: m16n8k12 is no mma.sync shape.
use cudajit::prelude::*;

#[kernel]
fn k(a: &[bf16], d: &mut [bf16]) {
    let f = FragA::<M16N8K12, bf16>::load_row(a, 16, 0, 0);
    d[0] = f[0];
}

fn main() {}
