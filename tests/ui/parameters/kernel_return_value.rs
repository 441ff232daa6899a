use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) -> f32 {
    c[0]
}

fn main() {}
