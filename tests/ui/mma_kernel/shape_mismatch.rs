// Through #[kernel]: A and B of different shapes.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f32]) {
    let a = FragA::<M16N8K16, bf16>::zero();
    let b = FragB::<M16N8K8, tf32>::zero();
    let mut c = Acc::<M16N8K16, f32>::zero();
    mma_sync(&a, &b, &mut c);
    c.store_row(d, 8, 0, 0);
}

fn main() {}
