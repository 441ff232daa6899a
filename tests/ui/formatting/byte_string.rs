use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = b"abc";
    c[0] = 0.0;
}

fn main() {}
