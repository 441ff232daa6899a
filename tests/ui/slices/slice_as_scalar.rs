use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x: f32 = c;
}

fn main() {}
