use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    sync_warp(-1i32);
    c[0] = 0.0;
}

fn main() {}
