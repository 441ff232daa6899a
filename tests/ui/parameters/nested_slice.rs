use cudajit::prelude::*;

#[kernel]
fn k(a: &[&[f32]], c: &mut [f32]) {
    c[0] = a[0][0];
}

fn main() {}
