use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[grid(2)] = 0.0;
}

fn main() {}
