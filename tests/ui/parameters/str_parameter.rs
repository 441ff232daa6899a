use cudajit::prelude::*;

#[kernel]
fn k(s: &str, c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
