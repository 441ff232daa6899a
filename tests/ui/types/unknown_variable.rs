use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = y;
}

fn main() {}
