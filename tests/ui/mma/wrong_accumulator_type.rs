// M16N8K32 accumulates in i32, not f32.
use cudajit::prelude::*;

fn main() {
    let _c = Acc::<M16N8K32, f32>::zero();
}
