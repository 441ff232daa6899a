use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let m = std::collections::HashMap::<u32, f32>::new();
    c[0] = 0.0;
}

fn main() {}
