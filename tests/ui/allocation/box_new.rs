use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = Box::new(1.0f32);
    c[0] = 1.0;
}

fn main() {}
