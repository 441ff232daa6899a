use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s = grid_size(0);
    c[0] = 0.0;
}

fn main() {}
