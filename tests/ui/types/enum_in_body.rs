use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    enum E {
        A,
    }
    c[0] = 0.0;
}

fn main() {}
