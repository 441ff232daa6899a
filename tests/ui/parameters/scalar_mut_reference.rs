use cudajit::prelude::*;

#[kernel]
fn k(x: &mut f32, c: &mut [f32]) {
    *x = c[0];
}

fn main() {}
