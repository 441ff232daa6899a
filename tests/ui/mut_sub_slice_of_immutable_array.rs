use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let acc = [0.0f32; 8];
    let window = &mut acc[2..6];
    window[0] = 1.0;
    out[0] = acc[2];
}

fn main() {}
