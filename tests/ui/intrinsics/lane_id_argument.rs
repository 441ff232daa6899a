use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let l = lane_id(0);
    c[0] = 0.0;
}

fn main() {}
