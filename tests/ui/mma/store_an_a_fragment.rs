// Only accumulators are stored; A and B fragments are operands.
use cudajit::prelude::*;

fn main() {
    let a = FragA::<M16N8K16, f16>::zero();
    let mut dst = [f16::ZERO; 256];
    a.store_row(&mut dst, 16, 0, 0);
}
