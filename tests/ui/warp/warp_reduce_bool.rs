use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s = warp_reduce_sum(true);
    c[0] = 0.0;
}

fn main() {}
