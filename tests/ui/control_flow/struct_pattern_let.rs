use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let S { x } = 1;
    c[0] = 0.0;
}

fn main() {}
