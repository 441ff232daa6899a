use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    todo!();
}

fn main() {}
