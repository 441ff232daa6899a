use cudajit::prelude::*;

static TABLE: Vec<f32> = Vec::new();

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = TABLE[0];
}

fn main() {}
