use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n = 1;
    let i = grid(n);
    c[0] = 0.0;
}

fn main() {}
