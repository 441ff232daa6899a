use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let p = &raw const c[0];
}

fn main() {}
