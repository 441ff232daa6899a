use cudajit::prelude::*;

struct P {
    x: f32,
}

#[kernel]
fn k(c: &mut [f32]) {
    let p = P { x: 1.0 };
    c[0] = 0.0;
}

fn main() {}
