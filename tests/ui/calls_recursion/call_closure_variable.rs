use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let f = 2.0f32;
    c[0] = f(1.0);
}

fn main() {}
