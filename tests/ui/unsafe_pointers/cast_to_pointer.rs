use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let p = c.as_ptr();
}

fn main() {}
