use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    assert_eq!(c[0]);
}

fn main() {}
