use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let f = |x: f32| x * 2.0;
    c[0] = 0.0;
}

fn main() {}
