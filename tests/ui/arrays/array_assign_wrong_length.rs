use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let mut a = [0.0f32; 4];
    a = [1.0f32; 3];
    c[0] = a[0];
}

fn main() {}
