use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let i = grid(1);
    let x: f32 = 1;
    c[i] = x + 1.0f64;
}

fn main() {}
