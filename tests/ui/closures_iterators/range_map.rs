use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n = (0..4).map(|i| i * 2).count();
    c[0] = 0.0;
}

fn main() {}
