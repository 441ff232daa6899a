use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    static SCALE: f32 = 2.0;
    c[0] = 0.0;
}

fn main() {}
