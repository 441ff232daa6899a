use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    struct P {
        x: f32,
    }
    c[0] = 0.0;
}

fn main() {}
