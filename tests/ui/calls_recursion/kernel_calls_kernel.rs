use cudajit::prelude::*;

#[kernel]
fn inner(c: &mut [f32]) {
    c[0] = 1.0;
}

#[kernel]
fn k(c: &mut [f32]) {
    inner(c);
}

fn main() {}
