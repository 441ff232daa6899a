// Through #[kernel]: bf16 inputs never accumulate in f16.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f16]) {
    let a = FragA::<M16N8K16, bf16>::zero();
    let b = FragB::<M16N8K16, bf16>::zero();
    let mut c = Acc::<M16N8K16, f16>::zero();
    mma_sync(&a, &b, &mut c);
    c.store_row(d, 8, 0, 0);
}

fn main() {}
