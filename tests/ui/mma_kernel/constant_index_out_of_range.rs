// Through #[kernel]: an m16n8 accumulator holds 4 elements per lane.
use cudajit::prelude::*;

#[kernel]
fn k(d: &mut [f32]) {
    let c = Acc::<M16N8K16, f32>::zero();
    d[0] = c[4];
}

fn main() {}
