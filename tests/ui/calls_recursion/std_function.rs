use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = std::cmp::max(1, 2) as f32;
}

fn main() {}
