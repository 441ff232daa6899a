// bf16 products have no f16 accumulator (only f16 inputs do).
use cudajit::prelude::*;

fn main() {
    let a = FragA::<M16N8K16, bf16>::zero();
    let b = FragB::<M16N8K16, bf16>::zero();
    let mut c = Acc::<M16N8K16, f16>::zero();
    mma_sync(&a, &b, &mut c);
}
