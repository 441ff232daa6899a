use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let tile = shared_array();
    out[0] = tile[0];
}

fn main() {}
