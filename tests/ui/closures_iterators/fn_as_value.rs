use cudajit::prelude::*;

#[device]
fn double(x: f32) -> f32 {
    x * 2.0
}

#[kernel]
fn k(c: &mut [f32]) {
    let f = double;
    c[0] = 0.0;
}

fn main() {}
