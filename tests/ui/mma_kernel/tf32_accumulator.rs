// Through #[kernel]: tf32 is an input type, not an accumulator.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f32]) {
    let c: Acc<M16N8K8, tf32> = Acc::<M16N8K8, tf32>::zero();
    d[0] = c[0];
}

fn main() {}
