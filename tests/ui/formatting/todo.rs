use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    todo!("{:x}", c[0]);
}

fn main() {}
