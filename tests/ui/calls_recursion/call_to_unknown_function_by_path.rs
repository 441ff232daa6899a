use cudajit::prelude::*;

mod helpers {}

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = helpers::nope(c[0]);
}

fn main() {}
