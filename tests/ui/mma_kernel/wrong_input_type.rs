// Through #[kernel]: no m16n8k16 mma multiplies f32.
use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], d: &mut [f32]) {
    let f = FragA::<M16N8K16, f32>::load_row(a, 16, 0, 0);
    d[0] = f[0];
}

fn main() {}
