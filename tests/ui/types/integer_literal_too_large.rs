use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x: u8 = 300;
    c[0] = 0.0;
}

fn main() {}
