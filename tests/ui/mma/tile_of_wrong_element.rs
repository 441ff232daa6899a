// A bf16 fragment loads from bf16 memory, not f32.
use cudajit::prelude::*;

fn main() {
    let src = [0.0f32; 256];
    let _a = FragA::<M16N8K16, bf16>::load_row(&src, 16, 0, 0);
}
