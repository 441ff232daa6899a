use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let found = None;
    c[0] = 0.0;
}

fn main() {}
