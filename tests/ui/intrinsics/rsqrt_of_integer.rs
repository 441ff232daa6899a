use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = rsqrt(4u32);
    c[0] = 0.0;
}

fn main() {}
