use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let r = &c[0];
}

fn main() {}
