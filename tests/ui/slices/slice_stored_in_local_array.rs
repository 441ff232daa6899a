use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a = [c[0]; 2];
    let b = [a; c.len()];
}

fn main() {}
