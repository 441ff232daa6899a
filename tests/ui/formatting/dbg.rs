use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    dbg!(c[0]);
}

fn main() {}
