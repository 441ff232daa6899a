// A and B of one mma_sync have the same element type.
use cudajit::prelude::*;

fn main() {
    let a = FragA::<M16N8K16, bf16>::zero();
    let b = FragB::<M16N8K16, f16>::zero();
    let mut c = Acc::<M16N8K16, f32>::zero();
    mma_sync(&a, &b, &mut c);
}
