use cudajit::prelude::*;

#[kernel]
extern "C" fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
