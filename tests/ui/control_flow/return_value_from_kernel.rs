use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    return 1.0;
}

fn main() {}
