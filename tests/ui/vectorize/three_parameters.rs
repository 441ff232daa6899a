use cudajit::prelude::*;

#[vectorize]
fn fma3(a: f32, b: f32, c: f32) -> f32 {
    a * b + c
}

fn main() {}
