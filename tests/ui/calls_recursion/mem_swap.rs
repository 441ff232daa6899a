use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let (mut x, mut y) = (1.0f32, 2.0f32);
    std::mem::swap(&mut x, &mut y);
    c[0] = x;
}

fn main() {}
