use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = 1.0f32;
    x = 2.0;
    c[0] = x;
}

fn main() {}
