use cudajit::prelude::*;

static mut SCALE: f32 = 2.0;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = SCALE;
}

fn main() {}
