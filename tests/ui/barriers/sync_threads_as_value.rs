use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x: u32 = sync_threads();
    c[0] = 0.0;
}

fn main() {}
