// M8N8K4 (DMMA) multiplies f64 only.
use cudajit::prelude::*;

fn main() {
    let _a = FragB::<M8N8K4, f32>::zero();
}
