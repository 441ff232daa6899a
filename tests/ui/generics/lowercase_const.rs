use cudajit::prelude::*;

#[kernel]
fn k<const n: usize>(x: &mut [f32]) {
    x[0] = n as f32;
}

fn main() {}
