use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s = "text";
    c[0] = 0.0;
}

fn main() {}
