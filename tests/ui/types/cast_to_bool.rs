use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = 1 as bool;
    c[0] = 0.0;
}

fn main() {}
