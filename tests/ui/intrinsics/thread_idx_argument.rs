use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let t = thread_idx(0).x;
    c[0] = 0.0;
}

fn main() {}
