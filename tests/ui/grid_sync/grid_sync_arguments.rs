use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    grid_sync(1);
    c[0] = 0.0;
}

fn main() {}
