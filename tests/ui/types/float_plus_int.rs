use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = c[0] + 1;
}

fn main() {}
