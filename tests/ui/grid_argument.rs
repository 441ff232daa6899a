use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32], n: u32) {
    let i = grid(4);
    let j = grid_size(n);
    c[i + j] = 1.0;
}

fn main() {}
