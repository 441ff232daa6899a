use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = c.get_unchecked(0);
}

fn main() {}
