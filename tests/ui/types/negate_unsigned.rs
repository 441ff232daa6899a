use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = 1u32;
    let y = -x;
    c[0] = 0.0;
}

fn main() {}
