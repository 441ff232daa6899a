use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    if 1 {
        c[0] = 0.0;
    }
}

fn main() {}
