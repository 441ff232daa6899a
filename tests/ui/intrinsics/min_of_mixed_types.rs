use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = c[0].min(1.0f64);
}

fn main() {}
