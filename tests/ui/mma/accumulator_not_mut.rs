// mma_sync writes the accumulator: it takes &mut.
use cudajit::prelude::*;

fn main() {
    let a = FragA::<M8N8K4, f64>::zero();
    let b = FragB::<M8N8K4, f64>::zero();
    let c = Acc::<M8N8K4, f64>::zero();
    mma_sync(&a, &b, &c);
}
