use cudajit::prelude::*;

#[kernel(fast = true)]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
