use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = 1.0f64;
    c[0] = fast_sin(x) as f32;
}

fn main() {}
