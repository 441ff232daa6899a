use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    panic!(c[0]);
}

fn main() {}
