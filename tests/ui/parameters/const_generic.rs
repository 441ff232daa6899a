use cudajit::prelude::*;

#[kernel]
fn k<const N: usize>(c: &mut [f32]) {
    c[0] = N as f32;
}

fn main() {}
