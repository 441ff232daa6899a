use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n: u32 = c.len();
}

fn main() {}
