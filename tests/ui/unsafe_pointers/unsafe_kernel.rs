use cudajit::prelude::*;

#[kernel]
unsafe fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
