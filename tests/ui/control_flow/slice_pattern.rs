use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let [x, y] = [1.0f32, 2.0];
    c[0] = x;
}

fn main() {}
