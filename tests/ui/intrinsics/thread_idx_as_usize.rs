use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[thread_idx().x] = 0.0;
}

fn main() {}
