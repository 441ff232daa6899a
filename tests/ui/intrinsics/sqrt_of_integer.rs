use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = 4u32.sqrt();
    c[0] = 0.0;
}

fn main() {}
