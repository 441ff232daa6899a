use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    assert_eq!(c.len(), 4);
}

fn main() {}
