use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32], n: usize) {
    let tile = shared_array::<[f32; n]>();
    tile[0] = 1.0;
    out[0] = tile[0];
}

fn main() {}
