use cudajit::prelude::*;

static mut COUNT: u32 = 0;

#[kernel]
fn k(c: &mut [f32]) {
    COUNT += 1;
    c[0] = 0.0;
}

fn main() {}
