use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let v = shfl_sync(-1i32, c[0], 0);
}

fn main() {}
