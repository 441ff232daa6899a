use cudajit::prelude::*;

#[kernel]
fn k((x, y): (f32, f32), c: &mut [f32]) {
    c[0] = x + y;
}

fn main() {}
