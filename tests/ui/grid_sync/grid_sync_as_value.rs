use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x: u32 = grid_sync();
    c[0] = 0.0;
}

fn main() {}
