use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = c.first();
}

fn main() {}
