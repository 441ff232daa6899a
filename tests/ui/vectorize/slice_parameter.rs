use cudajit::prelude::*;

#[vectorize]
fn scale(x: &[f32], k: f32) -> f32 {
    x[0] * k
}

fn main() {}
