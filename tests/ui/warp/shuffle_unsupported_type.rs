use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let v = shfl_sync(u32::MAX, 1u8, 0);
    c[0] = 0.0;
}

fn main() {}
