use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let v = shfl_sync(u32::MAX, c[0], 0.5);
}

fn main() {}
