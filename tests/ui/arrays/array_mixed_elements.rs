use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a = [1.0f32, 2u32];
    c[0] = 0.0;
}

fn main() {}
