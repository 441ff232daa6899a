use cudajit::prelude::*;

#[kernel]
fn k(a: &Nd<f32, 2>) {
    let (i, j) = grid(2);
    a[(i, j)] = 1.0;
}

fn main() {}
