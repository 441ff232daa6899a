use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = Default::default();
    c[0] = x;
}

fn main() {}
