use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let v = vec![0.0f32; 4];
    c[0] = v[0];
}

fn main() {}
