use cudajit::prelude::*;

static mut TOTAL: f32 = 0.0;

#[kernel]
fn k(a: &[f32]) {
    TOTAL = TOTAL + a[0];
}

fn main() {}
