use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a = [c; 2];
}

fn main() {}
