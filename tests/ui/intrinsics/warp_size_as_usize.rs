use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let w: usize = warp_size();
    c[0] = 0.0;
}

fn main() {}
