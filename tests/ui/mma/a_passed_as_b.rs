// A fragment where mma_sync takes B.
use cudajit::prelude::*;

fn main() {
    let a = FragA::<M16N8K16, bf16>::zero();
    let mut c = Acc::<M16N8K16, f32>::zero();
    mma_sync(&a, &a, &mut c);
}
