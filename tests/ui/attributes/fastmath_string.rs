use cudajit::prelude::*;

#[kernel(fastmath = "yes")]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
