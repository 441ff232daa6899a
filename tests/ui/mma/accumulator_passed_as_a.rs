// An accumulator where mma_sync takes A.
use cudajit::prelude::*;

fn main() {
    let b = FragB::<M16N8K16, f16>::zero();
    let c = Acc::<M16N8K16, f16>::zero();
    let mut d = Acc::<M16N8K16, f16>::zero();
    mma_sync(&c, &b, &mut d);
}
