use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let acc = [0.0f32; 4];
    acc[1] = out[0];
    out[1] = acc[1];
}

fn main() {}
