// tf32 is an input type only: M16N8K8 accumulates in f32.
use cudajit::prelude::*;

fn main() {
    let _c = Acc::<M16N8K8, tf32>::zero();
}
