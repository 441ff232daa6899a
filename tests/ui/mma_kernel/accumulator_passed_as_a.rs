// Through #[kernel]: the accumulator where mma_sync takes A.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f32]) {
    let b = FragB::<M16N8K16, bf16>::zero();
    let mut c = Acc::<M16N8K16, f32>::zero();
    mma_sync(&c, &b, &mut c);
    c.store_row(d, 8, 0, 0);
}

fn main() {}
