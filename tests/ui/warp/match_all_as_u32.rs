use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let m: u32 = match_all_sync(u32::MAX, 1u32);
    c[0] = 0.0;
}

fn main() {}
