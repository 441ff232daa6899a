use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    const N: usize = 4;
    c[0] = 0.0;
}

fn main() {}
