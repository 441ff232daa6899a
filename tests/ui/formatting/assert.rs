use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    assert!(c.len(), "empty");
}

fn main() {}
