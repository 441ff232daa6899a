use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b: u32 = std::mem::transmute(c[0]);
}

fn main() {}
