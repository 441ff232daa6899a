// f32 is not an input of M16N8K16 (its inputs are bf16 and f16).
use cudajit::prelude::*;

fn main() {
    let _a = FragA::<M16N8K16, f32>::zero();
}
