use cudajit::prelude::*;

type Buf = Vec<f32>;

#[kernel]
fn k(c: &mut [f32]) {
    let b: Buf;
    c[0] = 0.0;
}

fn main() {}
