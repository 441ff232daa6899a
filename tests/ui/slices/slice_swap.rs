use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c.swap(0, 1);
}

fn main() {}
