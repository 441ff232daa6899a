use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    grid_sync(c.len());
    c[0] = 1.0;
}

fn main() {}
