// Through #[kernel]: only accumulators are stored.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [bf16]) {
    let a = FragA::<M16N8K16, bf16>::zero();
    a.store_row(d, 16, 0, 0);
}

fn main() {}
