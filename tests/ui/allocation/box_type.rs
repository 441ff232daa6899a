use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b: Box<[f32]>;
    c[0] = 0.0;
}

fn main() {}
