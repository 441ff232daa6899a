use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    write!(c, "x");
}

fn main() {}
