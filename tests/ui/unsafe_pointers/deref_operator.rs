use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = c[0];
    c[0] = *x;
}

fn main() {}
