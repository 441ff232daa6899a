use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    sync_warp();
    c[0] = 0.0;
}

fn main() {}
