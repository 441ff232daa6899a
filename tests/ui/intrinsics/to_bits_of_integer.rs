use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = 1u32.to_bits();
    c[0] = 0.0;
}

fn main() {}
