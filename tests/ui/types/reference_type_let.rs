use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let r: &f32;
    c[0] = 0.0;
}

fn main() {}
