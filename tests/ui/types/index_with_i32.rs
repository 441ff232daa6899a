use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let i = 0i32;
    c[i] = 0.0;
}

fn main() {}
