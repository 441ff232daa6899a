use cudajit::prelude::*;

struct P(f32);

#[kernel]
fn k(c: &mut [f32]) {
    let p = P(1.0);
    c[0] = 0.0;
}

fn main() {}
