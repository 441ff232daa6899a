use cudajit::prelude::*;

#[kernel]
fn k<T: Copy>(c: &mut [f32]) {
    c[0] = 1.0;
}

fn main() {}
