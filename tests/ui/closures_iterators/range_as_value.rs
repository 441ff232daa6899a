use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let r = 0..4;
    c[0] = 0.0;
}

fn main() {}
