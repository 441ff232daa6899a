use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let o: Option<f32>;
    c[0] = 0.0;
}

fn main() {}
