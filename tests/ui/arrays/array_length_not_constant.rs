use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n = c.len();
    let a = [0.0f32; n];
    c[0] = a[0];
}

fn main() {}
