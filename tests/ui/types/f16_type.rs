use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x: f16 = 1.0;
    c[0] = x.to_f32();
}

fn main() {}
