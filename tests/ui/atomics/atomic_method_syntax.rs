use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let old = c.atomic_add(0, 1.0);
}

fn main() {}
