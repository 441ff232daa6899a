use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let t = thread_idx().w;
    c[0] = 0.0;
}

fn main() {}
