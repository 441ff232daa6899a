use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = mul_hi(1.0f32, 2.0f32);
    c[0] = 0.0;
}

fn main() {}
