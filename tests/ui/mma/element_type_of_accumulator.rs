// An f32 accumulator's elements are f32.
use cudajit::prelude::*;

fn main() {
    let c = Acc::<M16N8K16, f32>::zero();
    let _x: bf16 = c[0];
}
