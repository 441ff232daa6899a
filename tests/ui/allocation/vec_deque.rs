use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let q = std::collections::VecDeque::<f32>::new();
    c[0] = 0.0;
}

fn main() {}
