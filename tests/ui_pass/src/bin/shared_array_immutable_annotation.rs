use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let tile: &[f32; 4] = shared_array();
    c[0] = tile[0];
}

fn main() {}
