use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    use std::f32::consts::PI;
    c[0] = PI;
}

fn main() {}
