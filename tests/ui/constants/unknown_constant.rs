use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = NO_SUCH_CONSTANT;
}

fn main() {}
