use cudajit::prelude::*;

#[device]
fn add(x: f32, y: f32) -> f32 {
    x + y
}

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = add(c[0], 1u32);
}

fn main() {}
