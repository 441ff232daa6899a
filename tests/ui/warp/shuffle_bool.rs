use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let v = shfl_down_sync(u32::MAX, true, 1);
    c[0] = 0.0;
}

fn main() {}
