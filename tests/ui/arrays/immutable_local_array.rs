use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a = [0.0f32; 4];
    a[0] = 1.0;
    c[0] = a[0];
}

fn main() {}
