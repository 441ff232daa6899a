use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = 1i128;
    c[0] = 0.0;
}

fn main() {}
