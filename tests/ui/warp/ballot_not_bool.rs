use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = ballot_sync(u32::MAX, 1);
    c[0] = 0.0;
}

fn main() {}
